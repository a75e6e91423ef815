// Package controllers lists the controllers of `quokka manager`, so that
// cmd/quokka and the tests that run the command start the same ones.
package controllers

import (
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/dqo"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/controllers/koord"
	"quokka.dev/quokka/internal/cli"
)

// All returns the controllers of `quokka manager`, in the order they are set up.
// Each controller package exports a cli.Controller; register it here.
func All() []cli.Controller {
	return []cli.Controller{
		core.NewController(), // engine feeding, scheduling loop, Workload lifecycle, status, metrics
		dqo.Controller(),     // only when the DynamicQuotaOrchestration gate is on
		job.Controller(),
		webhooks.Controller(), // serving certificate managed in-process (cert-controller)
		koord.Controller(),    // Koord-Queue: a Queue per ElasticQuota, kept in sync
	}
}
