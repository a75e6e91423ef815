package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"quokka.dev/quokka/internal/version"
)

// newBuildInfo is kueue_build_info: 1, labelled by what the binary is, with
// Kueue's label names, so that a dashboard's version panel (and a join on it)
// reads Quokka's version. git_version is Quokka's version, git_commit the
// VCS revision the build recorded (empty without one).
func newBuildInfo(info version.Info) prometheus.Collector {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kueue_build_info",
		Help: "Build information: 1, labelled by git version, git commit, build date, go version, compiler and platform",
	}, []string{"git_version", "git_commit", "build_date", "go_version", "compiler", "platform"})
	g.WithLabelValues(info.Version, info.Commit, info.BuildDate, info.GoVersion, info.Compiler, info.Platform).Set(1)
	return g
}
