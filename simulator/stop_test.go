package simulator

import (
	"errors"
	"testing"
)

// A long run must end when the user stops it (SIGTERM reaches Run as a closed
// Stop channel): a run with its Stop closed applies nothing and says so.
func TestStopEndsTheRun(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+jobYAML("ns", "a", 8, "0s", "1h"))
	stop := make(chan struct{})
	close(stop)
	_, err := Run(d, Options{NewEngine: func(o EngineOptions) (Engine, error) { return newFakeEngine(o), nil }, Stop: stop})
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("Run with Stop closed: err = %v, want ErrStopped", err)
	}
}
