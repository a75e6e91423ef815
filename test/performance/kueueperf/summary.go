package main

import (
	"fmt"
	"os"

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
// ClusterQueue's usage.
type generatorConfig struct {
	Cohorts []struct {
		QueuesSets []struct {
			ClassName      string `json:"className"`
			NominalQuota   string `json:"nominalQuota"`
			BorrowingLimit string `json:"borrowingLimit"`
		} `json:"queuesSets"`
	} `json:"cohorts"`
}

// generatorLimits is nominal quota + borrowing limit of cpu, in millicores, per
// ClusterQueue class.
func generatorLimits(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg generatorConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
