//go:build integration

package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// checkRefusal fails the test unless err is what the case expects: none when
// refused is "", else an error that names refused. what names the object.
func checkRefusal(t *testing.T, err error, refused, what string) {
	t.Helper()
	switch {
	case refused == "" && err != nil:
		t.Fatalf("refused: %v", err)
	case refused != "" && err == nil:
		t.Fatalf("the API server accepted the %s", what)
	case refused != "" && !strings.Contains(err.Error(), refused):
		t.Errorf("the error does not name %s: %v", refused, err)
	}
}

// createAndRemove creates obj and deletes it again when it was accepted,
// returning the API server's answer to the create.
func createAndRemove(ctx context.Context, obj client.Object) error {
	err := env.Client.Create(ctx, obj)
	if err == nil {
		_ = env.Client.Delete(ctx, obj)
	}
	return err
}

// numbered is n names: prefix0, prefix1, ...
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}
