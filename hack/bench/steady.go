package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

const (
	// idleTenants have sources that never fetch, as in the issue.
	idleTenants = 50
	// settle lets provisioning and Flux's first failures drain before the
	// idle minute.
	settle = 20 * time.Second
)

func init() { parts["steady"] = measureSteady }

// measureSteady provisions tenants whose Git sources fail to fetch, with
// Flux running and retrying them, and counts the writes the API server
// records in one idle minute: Landlord's beside everyone's.
func measureSteady(ctx context.Context, e *env) ([]row, error) {
	p, err := e.controlPlane(ctx, true)
	if err != nil {
		return nil, err
	}
	if _, err := e.landlord(ctx); err != nil {
		return nil, err
	}
	admin, err := adminClient(p)
	if err != nil {
		return nil, err
	}
	tenants := benchTenants("idle", idleTenants)
	for _, t := range tenants {
		// Nothing listens on port 1: every fetch fails at once.
		t.Spec.Sources[0].Git.URL = "https://127.0.0.1:1/org/" + t.Name
		t.Spec.Sources[0].Interval = &metav1.Duration{Duration: time.Minute}
	}
	log.Printf("steady: provisioning %d tenants whose sources fail to fetch, Flux running", len(tenants))
	if _, _, err := provision(ctx, admin, tenants); err != nil {
		return nil, err
	}
	time.Sleep(settle)
	mark, err := p.MarkAudit()
	if err != nil {
		return nil, err
	}
	log.Printf("steady: counting writes for one idle minute")
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(time.Minute):
	}
	landlord, err := p.WritesSince(mark, tenancy.ControllerUser(tenancy.ControllerNamespace))
	if err != nil {
		return nil, err
	}
	all, err := countWrites(p, mark)
	if err != nil {
		return nil, err
	}
	return []row{{part: "steady", figure: fmt.Sprintf("Landlord's writes in an idle minute, %d tenants, Flux failing (baseline: all writes)", idleTenants),
		value: float64(len(landlord)), baseline: float64(all), unit: "requests", target: "0", met: len(landlord) == 0,
		note: summarize(landlord)}}, nil
}

// countWrites counts the writes the audit log records after mark, by
// anyone: the log records writes only, once each.
func countWrites(p *localcluster.Env, mark localcluster.AuditMark) (int, error) {
	f, err := os.Open(filepath.Join(p.Dir, localcluster.AuditLogFile))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.Seek(int64(mark), 0); err != nil {
		return 0, err
	}
	n := 0
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for scanner.Scan() {
		if json.Valid(scanner.Bytes()) {
			n++
		}
	}
	return n, scanner.Err()
}

// summarize counts writes by verb and resource, most first.
func summarize(writes []localcluster.Write) string {
	counts := map[string]int{}
	for _, w := range writes {
		counts[w.Verb+" "+w.Resource]++
	}
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b string) int { return counts[b] - counts[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return strings.Join(parts, ", ")
}
