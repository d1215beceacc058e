package localcluster

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// AuditLogFile is the API server's audit log in Env.Dir: one JSON event
// per write, so a test can count who sent what.
const AuditLogFile = "audit.log"

const auditPolicyFile = "audit-policy.yaml"

// auditPolicy records every write at Metadata level, once, and nothing
// else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`

// Write is one write the API server recorded.
type Write struct {
	User      string
	Verb      string
	Resource  string
	Namespace string
	Name      string
}

func (w Write) String() string {
	return fmt.Sprintf("%s %s %s/%s by %s", w.Verb, w.Resource, w.Namespace, w.Name, w.User)
}

// AuditMark is a position in the audit log, to count writes after it.
type AuditMark int64

// MarkAudit returns the audit log's current end.
func (e *Env) MarkAudit() (AuditMark, error) {
	info, err := os.Stat(filepath.Join(e.Dir, AuditLogFile))
	if err != nil {
		return 0, err
	}
	return AuditMark(info.Size()), nil
}

// WritesSince lists the writes recorded after mark by user, whether it
// authenticated as user or was impersonated as it.
func (e *Env) WritesSince(mark AuditMark, user string) ([]Write, error) {
	f, err := os.Open(filepath.Join(e.Dir, AuditLogFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(int64(mark), 0); err != nil {
		return nil, err
	}
	var writes []Write
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for scanner.Scan() {
		var event struct {
			Verb             string `json:"verb"`
			User             struct{ Username string }
			ImpersonatedUser *struct{ Username string }
			ObjectRef        *struct{ Resource, Subresource, Namespace, Name string }
		}
		if err := json.Unmarshal(scanner.Bytes(), &event); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		who := event.User.Username
		if event.ImpersonatedUser != nil {
			who = event.ImpersonatedUser.Username
		}
		if who != user || !slices.Contains([]string{"create", "update", "patch", "delete", "deletecollection"}, event.Verb) {
			continue
		}
		w := Write{User: who, Verb: event.Verb}
		if r := event.ObjectRef; r != nil {
			w.Resource, w.Namespace, w.Name = r.Resource, r.Namespace, r.Name
			if r.Subresource != "" {
				w.Resource += "/" + r.Subresource
			}
		}
		writes = append(writes, w)
	}
	return writes, scanner.Err()
}
