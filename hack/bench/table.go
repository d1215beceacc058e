package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// row is one figure of the table, beside the baseline measured in the same
// run.
type row struct {
	part   string // the -only name of the part that measured it: p1, p2, dash, p3, steady
	figure string // what was measured, in a few words
	value  float64
	// baseline is the same figure done the plain way in the same run; 0
	// means the figure has none.
	baseline float64
	unit     string // s, objects/s, MiB, ms, requests/s, requests
	target   string // the target in words, "" for a figure without one
	met      bool   // whether value meets target; ignored when target is ""
	note     string // how it was measured when the figure alone does not say
}

// measure runs one part of the benchmark against e and returns its rows.
type measure func(ctx context.Context, e *env) ([]row, error)

// parts are the benchmark's parts by -only name. A file adds its own in an
// init function, `func init() { parts["p3"] = measureLint }`; order lists
// the order they run and print in.
var parts = map[string]measure{}

var order = []string{"p1", "p2", "dash", "steady", "p3"}

// printTable writes rows as one aligned table, the core count first.
func printTable(w io.Writer, cores int, rows []row) error {
	fmt.Fprintf(w, "cores: %d\n", cores)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "part\tfigure\tvalue\tbaseline\tratio\ttarget\tmet\tnote")
	for _, r := range rows {
		baseline, ratio := "-", "-"
		if r.baseline != 0 {
			baseline = quantity(r.baseline, r.unit)
			ratio = strconv.FormatFloat(r.value/r.baseline, 'f', 2, 64)
		}
		met := "-"
		if r.target != "" {
			met = map[bool]string{true: "met", false: "NOT MET"}[r.met]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.part, r.figure, quantity(r.value, r.unit), baseline, ratio, r.target, met, r.note)
	}
	return tw.Flush()
}

// quantity spells v with three significant digits and its unit.
func quantity(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if strings.ContainsAny(s, "e") {
		s = strconv.FormatFloat(v, 'f', 0, 64)
	}
	return s + " " + unit
}
