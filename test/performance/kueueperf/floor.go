package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Under Kueue's baseline a class waits, first of all, for every workload of a
// higher priority: those take each slot a finish frees for as long as the
// runner keeps creating them. How long that is depends on the runner's
// creations (paced, and stretched by each create's latency), not on the
// manager; the rest of the class's wait is its own phase, which can go no
// faster than the quota turns over at the workloads' runtime. The order floor
// adds the two up: the least average wait of a class none of whose workloads
// is admitted before the last higher-priority one was created. It is what the
// issue's ratio targets have to be read against: a side whose floor is above
// half the other side's wait cannot meet the 0.5× target by any change to how
// it decides or writes. It is not a bound on every run: a workload admitted in
// a moment when no higher-priority one waits (and most often preempted soon
// after) escapes it, and the table counts those.

// classShape is what the floor needs of a class of workloads.
type classShape struct {
	priority int32
	// request is the cpu one workload asks for, in millicores.
	request int64
	runtime time.Duration
}

// generatorShapes reads each workload class's priority, request and runtime,
// and each Cohort class's quota: the nominal quotas of its ClusterQueues
// added up, all a Cohort's workloads can use at once (nothing is lent from
// outside it). A workload class given two shapes is left out (perClass).
func generatorShapes(path string) (classes map[string]classShape, cohortQuota map[string]int64, err error) {
	cfg, err := readGeneratorConfig(path)
	if err != nil {
		return nil, nil, err
	}
	cohortQuota = map[string]int64{}
	for _, c := range cfg.Cohorts {
		for _, q := range c.QueuesSets {
			nominal, err := resource.ParseQuantity(q.NominalQuota)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: nominalQuota of %s: %w", path, q.ClassName, err)
			}
			cohortQuota[c.ClassName] += max(q.Count, 1) * nominal.MilliValue()
		}
	}
	classes, err = perClass(cfg, func(w *generatorWorkload) (classShape, error) {
		req, err := resource.ParseQuantity(w.Request)
		if err != nil {
			return classShape{}, fmt.Errorf("%s: request of workload class %s: %w", path, w.ClassName, err)
		}
		return classShape{priority: w.Priority, request: req.MilliValue(), runtime: time.Duration(w.RuntimeMs) * time.Millisecond}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return classes, cohortQuota, nil
}

// cohortClass is the class of a Cohort the generator named "<class>-<index>".
func cohortClass(cohort string) string {
	i := strings.LastIndex(cohort, "-")
	if i < 0 {
		return cohort
	}
	if _, err := strconv.ParseUint(cohort[i+1:], 10, 32); err != nil {
		return cohort
	}
	return cohort[:i]
}

// classFloor is one class's order floor on one side (see above).
type classFloor struct {
	// higherDone is when the last higher-priority workload was created,
	// since the first create; zero for the highest class.
	higherDone time.Duration
	// wait is the floor: the least average wait of the class had none of
	// its workloads been admitted before higherDone.
	wait time.Duration
	// early is how many of the class's n workloads were admitted (their
	// last admission) before higherDone.
	early, n int
}

func (f classFloor) String() string {
	return fmt.Sprintf("%.1f s; %d of %d before %.1f s", f.wait.Seconds(), f.early, f.n, f.higherDone.Seconds())
}

// floors works out each known class's order floor. In each Cohort the k-th
// workload of the class (in creation order) can be admitted no earlier than
// its creation, nor than higherDone plus k/slots runtimes, slots being how
// many of it the Cohort's quota holds at once; the floor is the average over
// the class of that earliest admission less the creation. A Cohort whose
// quota is unknown counts as holding the whole class at once.
func (p *phaseLog) floors(classes map[string]classShape, cohortQuota map[string]int64) map[string]classFloor {
	created := map[string]map[string][]time.Duration{} // class, then Cohort
	for _, w := range p.workloads {
		if _, ok := classes[w.class]; !ok || w.created.IsZero() {
			continue
		}
		if created[w.class] == nil {
			created[w.class] = map[string][]time.Duration{}
		}
		created[w.class][w.cohort] = append(created[w.class][w.cohort], w.created.Sub(p.start))
	}
	out := map[string]classFloor{}
	for class, byCohort := range created {
		shape := classes[class]
		var f classFloor
		for other, cs := range created {
			if classes[other].priority <= shape.priority {
				continue
			}
			for _, ts := range cs {
				f.higherDone = max(f.higherDone, slices.Max(ts))
			}
		}
		var sum time.Duration
		for cohort, ts := range byCohort {
			slices.Sort(ts)
			slots := int64(len(ts))
			if q, ok := cohortQuota[cohortClass(cohort)]; ok && shape.request > 0 {
				slots = max(q/shape.request, 1)
			}
			for k, c := range ts {
				earliest := f.higherDone + time.Duration(int64(k)/slots)*shape.runtime
				sum += max(c, earliest) - c
			}
			f.n += len(ts)
		}
		f.wait = sum / time.Duration(f.n)
		for _, w := range p.workloads {
			if at, ok := w.admitted(); ok && w.class == class && at.Sub(p.start) < f.higherDone {
				f.early++
			}
		}
		out[class] = f
	}
	return out
}
