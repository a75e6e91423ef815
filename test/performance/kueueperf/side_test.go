package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rerun into the output directory of an interrupted run must not add its
// audit log to the earlier one's: the API server appends, and the table would
// count both runs' writes per workload.
func TestFreshSideDirRefusesAnEarlierRunsAuditLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "quokka")
	if err := freshSideDir(dir); err != nil {
		t.Fatalf("a new directory: %v", err)
	}
	if err := freshSideDir(dir); err != nil {
		t.Fatalf("an empty directory made before: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "audit.log"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := freshSideDir(dir)
	if err == nil || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "audit.log") {
		t.Fatalf("a directory with an audit log: got %v, want an error naming --out and audit.log", err)
	}
}
