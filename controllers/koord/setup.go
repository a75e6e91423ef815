package koord

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/internal/cli"
)

// Options configure the Koord-Queue path; zero values take the defaults.
type Options struct {
	// OversellRate scales every max in the usage check (--oversellrate).
	OversellRate elasticquota.OversellRate
	// ReclaimProtectTime is how long after its admission a unit is not
	// reclaimed by queue-level preemption (Koord-Queue's
	// defaultReclaimProtectTime; 0 protects nothing).
	ReclaimProtectTime time.Duration
	// Namespace is where Queue objects live (default koord-queue).
	Namespace string
	// Resync is how often the admission loop runs without a change, so that
	// units waiting on something the API does not announce are retried
	// (default 10s).
	Resync time.Duration
	// Debounce lets a burst of changes join one cycle (default 20ms).
	Debounce time.Duration
	// Now is the wall clock (time.Now); the engine never reads one.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = queuev1alpha1.DefaultQueueNamespace
	}
	if o.Resync == 0 {
		o.Resync = 10 * time.Second
	}
	if o.Debounce == 0 {
		o.Debounce = 20 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Setup adds the Queue sync, the Job extension, the admission loop and its
// metrics to mgr.
func Setup(mgr manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	if err := (&QueueReconciler{Client: mgr.GetClient(), Namespace: opts.Namespace}).SetupWithManager(mgr); err != nil {
		return err
	}
	recorder := mgr.GetEventRecorderFor("koord-queue") //nolint:staticcheck // core/v1 Events, as Koord-Queue records them
	if err := (&JobReconciler{Client: mgr.GetClient(), Recorder: recorder}).SetupWithManager(mgr); err != nil {
		return err
	}
	m := newMetrics(ctrlmetrics.Registry)
	if err := mgr.Add(m); err != nil {
		return fmt.Errorf("adding Koord-Queue metrics: %w", err)
	}
	return setupAdmission(mgr, opts, recorder, m)
}

// Controller registers the Koord-Queue path with `quokka manager`, with
// Koord-Queue's own flags.
func Controller() cli.Controller {
	var rate oversellRateFlag
	var parentLimit bool
	var protect time.Duration
	return cli.Controller{
		Name: "koord-queue",
		Flags: func(fs *pflag.FlagSet) {
			fs.Var(&rate, "oversellrate",
				"Koord-Queue: every ElasticQuota max counts as max × this rate in the usage check (a positive number, exact: 1.2 is 6/5)")
			fs.DurationVar(&protect, "defaultReclaimProtectTime", 0,
				"Koord-Queue: a unit admitted less than this long ago is not reclaimed by queue-level preemption")
			fs.BoolVar(&parentLimit, "enableParentLimit", false,
				"Koord-Queue: accepted for compatibility; no decision reads it (spec 004)")
		},
		Setup: func(mgr manager.Manager, _ *configapi.Configuration) error {
			log := mgr.GetLogger().WithName("koord-queue")
			if parentLimit {
				// 004: "the flag --enableParentLimit is accepted by the component
				// but is not consulted by any decision in the current release".
				log.Info("--enableParentLimit has no effect: parent quotas always limit their children through the usage check (spec 004)")
			}
			return Setup(mgr, Options{OversellRate: rate.rate, ReclaimProtectTime: protect})
		},
	}
}
