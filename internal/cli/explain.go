package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/internal/explain"
	"quokka.dev/quokka/internal/scheme"
)

// explainFlags are the flags of `quokka explain` and its subcommands.
type explainFlags struct {
	output     string
	configFile string
	kubeconfig string
	namespace  string
}

// NewExplainCommand builds `quokka explain`. It reads the cluster through the
// kubeconfig (--kubeconfig, else $KUBECONFIG, ~/.kube/config or the in-cluster
// service account) with a client that can only read.
func NewExplainCommand() *cobra.Command {
	f := &explainFlags{}
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Explain why a workload waits and what would admit it (reads the cluster, never writes)",
		Long: "Read the cluster through the kubeconfig, build the engine from it exactly as the\n" +
			"manager does, and explain a pending workload (its position, every flavor tried with\n" +
			"the numbers, what preemption would take, what quota change would admit it now) or a\n" +
			"queue (its quota, usage and pending workloads in order). It never writes to the cluster.",
		Args: cobra.NoArgs,
	}
	pf := cmd.PersistentFlags()
	pf.StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	pf.StringVar(&f.configFile, "config", "",
		"the manager's config.kueue.x-k8s.io/v1beta2 Configuration (fair sharing and feature gates change decisions)")
	pf.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file; default $KUBECONFIG, ~/.kube/config or in-cluster")
	pf.StringVarP(&f.namespace, "namespace", "n", "default", "namespace of a NAME given without NAMESPACE/")

	cmd.AddCommand(
		&cobra.Command{
			Use:   "workload [NAMESPACE/]NAME",
			Short: "Explain a workload: position, flavors tried, preemption and the change that would admit it",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return f.run(cmd, func(e *explain.Explainer) (report, error) {
					return e.Workload(f.key(args[0]))
				})
			},
		},
		&cobra.Command{
			Use:   "localqueue [NAMESPACE/]NAME",
			Short: "Explain a LocalQueue: its ClusterQueue and its pending workloads in order",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return f.run(cmd, func(e *explain.Explainer) (report, error) {
					return e.LocalQueue(f.key(args[0]))
				})
			},
		},
		&cobra.Command{
			Use:   "clusterqueue NAME",
			Short: "Explain a ClusterQueue: quota, usage and pending workloads in order",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return f.run(cmd, func(e *explain.Explainer) (report, error) {
					return e.ClusterQueue(args[0])
				})
			},
		},
	)
	return cmd
}

// report is what every explain subcommand prints.
type report interface {
	WriteText(w io.Writer) error
}

func (f *explainFlags) key(arg string) types.NamespacedName {
	if ns, name, ok := strings.Cut(arg, "/"); ok {
		return types.NamespacedName{Namespace: ns, Name: name}
	}
	return types.NamespacedName{Namespace: f.namespace, Name: arg}
}

func (f *explainFlags) run(cmd *cobra.Command, ask func(*explain.Explainer) (report, error)) error {
	if f.output != "text" && f.output != "json" {
		return fmt.Errorf("--output must be text or json, not %q", f.output)
	}
	// The same defaults and checks as `quokka manager --config`.
	env := configapi.WithEnvironment(configapi.EnvironmentFromServiceAccount(configapi.DefaultServiceAccountNamespaceFile))
	cfg := configapi.Default(env)
	if f.configFile != "" {
		var err error
		if cfg, err = configapi.Load(f.configFile, env); err != nil {
			return err
		}
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		return &configapi.InvalidError{Source: cmp.Or(f.configFile, "configuration"), Errs: errs}
	}
	restConfig, err := f.restConfig()
	if err != nil {
		return fmt.Errorf("finding the cluster: %w", err)
	}
	c, err := client.New(restConfig, client.Options{Scheme: scheme.New()})
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	// Only the Reader half of the client goes further: explain cannot write.
	e, err := explain.Load(cmd.Context(), client.Reader(c), cfg)
	if err != nil {
		return err
	}
	for _, r := range e.Refused {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: the engine refuses %s\n", r)
	}
	rep, err := ask(e)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.output == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(out)
}

func (f *explainFlags) restConfig() (*rest.Config, error) {
	if f.kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	}
	return ctrlconfig.GetConfig()
}
