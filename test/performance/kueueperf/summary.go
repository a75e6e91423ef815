package main

import (
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// summary is the runner's summary.yaml (recorder.Summary of Kueue's runner).
type summary struct {
	ClusterQueueClasses map[string]struct {
		CPUUsed         int64 `json:"cpuUsed"`
		CPUAverageUsage int64 `json:"cpuAverageUsage"`
		NominalQuota    int64 `json:"nominalQuota"`
	} `json:"clusterQueueClasses"`
	WorkloadClasses map[string]struct {
		Count                    int32 `json:"count"`
		TotalEvictions           int32 `json:"totalEvictions"`
		AverageTimeToAdmissionMs int64 `json:"averageTimeToAdmissionMs"`
		AverageTimeToFinishMs    int64 `json:"averageTimeToFinishMs"`
	} `json:"workloadClasses"`
	// DroppedWorkloadEvents counts the workload events the runner's
	// recorder dropped because its channel was full: its timeline misses
	// them.
	DroppedWorkloadEvents int64 `json:"droppedWorkloadEvents"`
}

func readSummary(path string) (*summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the runner's summary: %w", err)
	}
	var s summary
	if err := yaml.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// workloads is how many workloads the run played.
func (s *summary) workloads() int {
	n := 0
	for _, c := range s.WorkloadClasses {
		n += int(c.Count)
	}
	return n
}

// generatorConfig is the part of the runner's generator config that bounds a
// ClusterQueue's usage and says how long each class of workload runs, at
// which priority and how much cpu it asks for.
type generatorConfig struct {
	Cohorts []struct {
		ClassName  string `json:"className"`
		QueuesSets []struct {
			ClassName      string `json:"className"`
			Count          int64  `json:"count"`
			NominalQuota   string `json:"nominalQuota"`
			BorrowingLimit string `json:"borrowingLimit"`
			WorkloadsSets  []struct {
				Workloads []generatorWorkload `json:"workloads"`
			} `json:"workloadsSets"`
		} `json:"queuesSets"`
	} `json:"cohorts"`
}

// generatorWorkload is one class of workload of a generator config.
type generatorWorkload struct {
	ClassName string `json:"className"`
	RuntimeMs int64  `json:"runtimeMs"`
	Priority  int32  `json:"priority"`
	Request   string `json:"request"`
}

// perClass gives each workload class of cfg what f makes of it. A class
// given two different values is left out: its workloads cannot be told
// apart by name.
func perClass[T comparable](cfg *generatorConfig, f func(w *generatorWorkload) (T, error)) (map[string]T, error) {
	out := map[string]T{}
	ambiguous := map[string]bool{}
	for _, c := range cfg.Cohorts {
		for _, q := range c.QueuesSets {
			for _, set := range q.WorkloadsSets {
				for i := range set.Workloads {
					w := &set.Workloads[i]
					v, err := f(w)
					if err != nil {
						return nil, err
					}
					if prev, ok := out[w.ClassName]; ok && prev != v {
						ambiguous[w.ClassName] = true
					}
					out[w.ClassName] = v
				}
			}
		}
	}
	for class := range ambiguous {
		delete(out, class)
	}
	return out, nil
}

// readGeneratorConfig reads the parts of a generator config the harness uses.
func readGeneratorConfig(path string) (*generatorConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg generatorConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &cfg, nil
}

// generatorRuntimes is how long the runner keeps each class of workload
// running once it sees it admitted. A class given two runtimes is left out:
// its workloads cannot be told apart by name.
func generatorRuntimes(path string) (map[string]time.Duration, error) {
	cfg, err := readGeneratorConfig(path)
	if err != nil {
		return nil, err
	}
	return perClass(cfg, func(w *generatorWorkload) (time.Duration, error) {
		return time.Duration(w.RuntimeMs) * time.Millisecond, nil
	})
}

// generatorLimits is nominal quota + borrowing limit of cpu, in millicores, per
// ClusterQueue class.
func generatorLimits(path string) (map[string]int64, error) {
	cfg, err := readGeneratorConfig(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, c := range cfg.Cohorts {
		for _, q := range c.QueuesSets {
			nominal, err := resource.ParseQuantity(q.NominalQuota)
			if err != nil {
				return nil, fmt.Errorf("%s: nominalQuota of %s: %w", path, q.ClassName, err)
			}
			limit := nominal.MilliValue()
			if q.BorrowingLimit != "" {
				b, err := resource.ParseQuantity(q.BorrowingLimit)
				if err != nil {
					return nil, fmt.Errorf("%s: borrowingLimit of %s: %w", path, q.ClassName, err)
				}
				limit += b.MilliValue()
			}
			out[q.ClassName] = limit
		}
	}
	return out, nil
}
