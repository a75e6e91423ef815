package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// auditPolicy records every write (create, update, patch, delete) at the
// Metadata level, and nothing else, so that the log stays small.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  verbs: ["get", "list", "watch"]
- level: Metadata
`

// auditCounts are one user's writes, by verb and resource.
type auditCounts struct {
	// byKey counts "verb resource[/subresource]"; a patch sent as server-side
	// apply (a fieldManager in the query) counts as "apply".
	byKey map[string]int
	// conflicts counts writes refused with 409.
	conflicts int
	// events counts events created or patched.
	events int
	total  int
	// statusLatency sums the time the API server took to serve each
	// workloads/status write (received to response), statusWrites counts them:
	// the runner's Finished patches wait on the API server's load.
	statusLatency time.Duration
	statusWrites  int
}

// avgStatusLatency is the mean time a workloads/status write took.
func (a *auditCounts) avgStatusLatency() time.Duration {
	if a.statusWrites == 0 {
		return 0
	}
	return a.statusLatency / time.Duration(a.statusWrites)
}

type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received  time.Time `json:"requestReceivedTimestamp"`
	Completed time.Time `json:"stageTimestamp"`
}

// countAudit reads the API server's audit log once and counts each user's
// writes (the log of a baseline run holds about 100,000 requests); phases, when
// not nil, sees every completed request too.
func countAudit(path string, phases *phaseLog, users ...string) (map[string]*auditCounts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	defer f.Close()
	counts := map[string]*auditCounts{}
	for _, u := range users {
		counts[u] = &auditCounts{byKey: map[string]int{}}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if phases != nil && e.Stage == "ResponseComplete" {
			phases.note(&e)
		}
		out, ok := counts[e.User.Username]
		if e.Stage != "ResponseComplete" || !ok || e.ObjectRef == nil {
			continue
		}
		verb := e.Verb
		if verb == "patch" && strings.Contains(e.RequestURI, "fieldManager=") {
			verb = "apply"
		}
		res := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			res += "/" + e.ObjectRef.Subresource
		}
		out.byKey[verb+" "+res]++
		out.total++
		if e.ResponseStatus != nil && e.ResponseStatus.Code == 409 {
			out.conflicts++
		}
		if e.ObjectRef.Resource == "events" {
			out.events++
		}
		if res == "workloads/status" {
			out.statusLatency += e.Completed.Sub(e.Received)
			out.statusWrites++
		}
	}
	return counts, sc.Err()
}

// keys lists the counted keys, most frequent first.
func (a *auditCounts) keys() []string {
	out := make([]string, 0, len(a.byKey))
	for k := range a.byKey {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if a.byKey[out[i]] != a.byKey[out[j]] {
			return a.byKey[out[i]] > a.byKey[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
