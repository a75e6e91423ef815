package core

import (
	"context"
	"sync/atomic"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Replica roles, the values of the replica_role metric label (Kueue's).
const (
	RoleLeader     = "leader"
	RoleFollower   = "follower"
	RoleStandalone = "standalone"
)

// Role tracks whether this replica may write. Reconcilers run on every replica
// to keep the engine warm, and consult Role before any API write, so that only
// the leader acts.
type Role struct {
	electionEnabled bool
	leader          atomic.Bool
}

// NewRole returns a Role; without leader election the replica is standalone and
// writes from the start.
func NewRole(electionEnabled bool) *Role {
	r := &Role{electionEnabled: electionEnabled}
	if !electionEnabled {
		r.leader.Store(true)
	}
	return r
}

// CanWrite reports whether this replica is the leader (or standalone).
func (r *Role) CanWrite() bool { return r.leader.Load() }

// Label is the replica_role metric label value.
func (r *Role) Label() string {
	switch {
	case !r.electionEnabled:
		return RoleStandalone
	case r.leader.Load():
		return RoleLeader
	default:
		return RoleFollower
	}
}

// watchElection is a runnable that does not need leader election itself: it
// waits for the manager's Elected channel and flips the role.
type watchElection struct {
	role    *Role
	elected <-chan struct{}
}

var _ manager.LeaderElectionRunnable = watchElection{}

func (w watchElection) NeedLeaderElection() bool { return false }

func (w watchElection) Start(ctx context.Context) error {
	select {
	case <-w.elected:
		w.role.leader.Store(true)
	case <-ctx.Done():
	}
	return nil
}
