package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/landlord-dev/landlord/internal/version"
)

func TestVersion(t *testing.T) {
	if out := landlord(t, "version"); out != "landlord "+version.Get().String()+"\n" {
		t.Errorf("landlord version printed %q", out)
	}
	var got version.Info
	if err := json.Unmarshal([]byte(landlord(t, "version", "-o", "json")), &got); err != nil {
		t.Fatal(err)
	}
	if got != version.Get() {
		t.Errorf("landlord version -o json: %+v, want %+v", got, version.Get())
	}
	if _, err := run("version", "-o", "xml"); err == nil || !strings.Contains(err.Error(), `--output "xml"`) {
		t.Errorf("error %v, want one naming the output format", err)
	}
}
