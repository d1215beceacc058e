package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/landlord-dev/landlord/internal/lint"
	"github.com/landlord-dev/landlord/internal/version"
)

// lintOutputs are the values of lint's -o.
var lintOutputs = []string{"text", "json", "sarif", "github"}

// findingPlaces says where the repositories lint read are: the files of
// findings are relative to their repository, CI wants them relative to the
// checkout it runs in.
type findingPlaces struct {
	// root is the checkout: the Git work tree holding the working
	// directory, else the working directory.
	root string
	// dirs are the absolute repositories by tenant, "" for the fleet.
	dirs map[string]string
}

func newFindingPlaces(fleetDir string, repos []lint.TenantRepo) (*findingPlaces, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	p := &findingPlaces{root: gitRoot(wd), dirs: map[string]string{}}
	abs := func(dir string) string {
		a, err := filepath.Abs(dir)
		if err != nil {
			return dir
		}
		if real, err := filepath.EvalSymlinks(a); err == nil {
			return real
		}
		return a
	}
	p.dirs[""] = abs(fleetDir)
	for _, r := range repos {
		if _, ok := p.dirs[r.Tenant]; !ok {
			p.dirs[r.Tenant] = abs(r.Dir)
		}
	}
	return p, nil
}

// gitRoot is the nearest directory from dir up holding .git, else dir.
func gitRoot(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// inCheckout is f's file relative to the checkout, slash-separated, and
// whether it lies inside it.
func (p *findingPlaces) inCheckout(f lint.Finding) (string, bool) {
	abs := filepath.Join(p.dirs[f.Repo], filepath.FromSlash(f.File))
	rel, err := filepath.Rel(p.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs), false
	}
	return filepath.ToSlash(rel), true
}

// writeFindings prints findings in format: one a line, a JSON list, a
// SARIF log, or GitHub Actions workflow commands.
func writeFindings(w io.Writer, format string, findings []lint.Finding, places *findingPlaces) error {
	switch format {
	case "json":
		if findings == nil {
			findings = []lint.Finding{} // [] rather than null
		}
		return writeData(w, "json", findings, nil)
	case "sarif":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sarifLog(findings, places))
	case "github":
		for _, f := range findings {
			file, _ := places.inCheckout(f)
			command := "error"
			if f.Severity == lint.SeverityWarning {
				command = "warning"
			}
			if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n", command,
				escapeProperty(file), f.Line, escapeProperty(f.Rule), escapeData(f.Message)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range findings {
		if _, err := fmt.Fprintln(w, f); err != nil {
			return err
		}
	}
	return nil
}

// escapeData escapes a workflow command's message as the Actions runner
// unescapes it.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value, which also
// ends at a comma and must not hold a colon.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// The parts of a SARIF 2.1.0 log lint writes.
type (
	sarifDoc struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                   `json:"tool"`
		OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
		Results            []sarifResult               `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifMessage `json:"shortDescription"`
		FullDescription      sarifMessage `json:"fullDescription"`
		Help                 sarifMessage `json:"help"`
		DefaultConfiguration struct {
			Level string `json:"level"`
		} `json:"defaultConfiguration"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation struct {
			ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
			Region           struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	}
	sarifArtifactLoc struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
)

// sarifLog is findings as one SARIF run for GitHub code scanning: the rules
// of lint and of the guard, and each finding at its file and line. A file
// in the checkout has a URI relative to it; one outside, in a tenant's
// repository checked out elsewhere, is relative to that repository, named
// by uriBaseId TENANT_<name> (FLEET for the fleet), whose absolute URI
// originalUriBaseIds gives.
func sarifLog(findings []lint.Finding, places *findingPlaces) sarifDoc {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "landlord lint", Version: version.Get().Version,
		InformationURI: "https://github.com/landlord-dev/landlord"}}, Results: []sarifResult{}}
	index := map[string]int{}
	for _, r := range slices.Concat(lintRules(), policyRules()) {
		index[r.id] = len(run.Tool.Driver.Rules)
		sr := sarifRule{ID: r.id, Name: r.name, ShortDescription: sarifMessage{r.name}, FullDescription: sarifMessage{r.reason},
			Help: sarifMessage{r.reason}}
		sr.DefaultConfiguration.Level = "error"
		if r.id == lint.RuleUnknownKind.ID {
			sr.DefaultConfiguration.Level = "warning" // an error with --strict
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
	}
	for _, f := range findings {
		res := sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: string(f.Severity), Message: sarifMessage{f.Message}}
		if res.Level == "" {
			res.Level = string(lint.SeverityError)
		}
		var loc sarifLocation
		uri, inside := places.inCheckout(f)
		loc.PhysicalLocation.ArtifactLocation.URI = uri
		if !inside {
			base := "FLEET"
			if f.Repo != "" {
				base = "TENANT_" + f.Repo
			}
			loc.PhysicalLocation.ArtifactLocation = sarifArtifactLoc{URI: f.File, URIBaseID: base}
			if run.OriginalURIBaseIDs == nil {
				run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{}
			}
			run.OriginalURIBaseIDs[base] = sarifArtifactLoc{URI: "file://" + filepath.ToSlash(places.dirs[f.Repo]) + "/"}
		}
		loc.PhysicalLocation.Region.StartLine = max(f.Line, 1)
		res.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, res)
	}
	return sarifDoc{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}
