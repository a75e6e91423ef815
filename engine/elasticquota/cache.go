package elasticquota

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/hierarchy"
	"quokka.dev/quokka/engine/resources"
)

// quotaInfo is what the cache keeps of one ElasticQuota: its bounds in canonical
// units and the usage of the units reserved in its subtree.
type quotaInfo struct {
	namespace string
	min, max  resources.Requests
	used      resources.Requests
}

type tree = hierarchy.Tree[struct{}, *quotaInfo]

// Cache holds the ElasticQuotas by name, the parent chain, and the usage that
// admitted units charge to every quota on their chain, koordinator-root-quota
// included. It is not safe for concurrent use; a driver serialises calls, as for
// the scheduler.
type Cache struct {
	tree     *tree
	quotas   map[string]*hierarchy.Cohort[struct{}, *quotaInfo]
	reserved map[types.UID]reservation
	// rootUsed is what admitted units charge to koordinator-root-quota. It is
	// kept apart from the tree because the root is usually not written as an
	// ElasticQuota (every quota without a parent label hangs below it all the
	// same), and its usage must not depend on whether it is.
	rootUsed resources.Requests
}

type reservation struct {
	quota   string
	request resources.Requests
	path    []string
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{
		tree:     hierarchy.New[struct{}, *quotaInfo](nil),
		quotas:   map[string]*hierarchy.Cohort[struct{}, *quotaInfo]{},
		reserved: map[types.UID]reservation{},
		rootUsed: resources.Requests{},
	}
}

// Upsert adds or replaces a quota. Quotas are indexed by name: 004, "two
// ElasticQuota objects with the same name in different namespaces are treated as
// the same quota, and the one that is reconciled last wins." Usage already charged
// to the name is kept.
func (c *Cache) Upsert(eq *koordv1alpha1.ElasticQuota) error {
	minReq, err := canonical(eq.Spec.Min, "spec.min")
	if err != nil {
		return fmt.Errorf("ElasticQuota %s/%s: %w", eq.Namespace, eq.Name, err)
	}
	maxReq, err := canonical(eq.Spec.Max, "spec.max")
	if err != nil {
		return fmt.Errorf("ElasticQuota %s/%s: %w", eq.Namespace, eq.Name, err)
	}
	node := c.tree.SetCohort(eq.Name, ParentName(eq))
	if node.Value == nil {
		node.Value = &quotaInfo{used: resources.Requests{}}
	}
	node.Value.namespace = eq.Namespace
	node.Value.min, node.Value.max = minReq, maxReq
	c.quotas[eq.Name] = node
	return nil
}

// Delete removes the quota of that name. Units reserved in it keep their charge on
// the rest of their chain until they are unreserved.
func (c *Cache) Delete(name string) {
	delete(c.quotas, name)
	c.tree.DeleteCohort(name)
}

// OversellRate scales every quota's max in the usage check (Koord-Queue's
// --oversellrate). It is exact: a rational, never a float.
type OversellRate struct{ r *big.Rat }

// ParseOversellRate parses a rate such as "1", "1.2" or "0.8".
func ParseOversellRate(s string) (OversellRate, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 {
		return OversellRate{}, fmt.Errorf("oversell rate %q must be a non-negative number", s)
	}
	return OversellRate{r: r}, nil
}

// NoOversell is the rate 1.
var NoOversell = OversellRate{r: big.NewRat(1, 1)}

func (o OversellRate) scale(v int64) *big.Rat {
	r := o.r
	if r == nil {
		r = NoOversell.r
	}
	return new(big.Rat).Mul(new(big.Rat).SetInt64(v), r)
}

// ErrCycle and ErrQuotaNotExist classify CheckUsage failures; the messages follow
// Koord-Queue's so that alerts written for it still match.
var (
	ErrCycle         = errors.New("cycle reference")
	ErrQuotaNotExist = errors.New("quota not exist")
	ErrInsufficient  = errors.New("insufficient quota")
)

// CheckUsage reports whether a unit requesting req fits in quota and every ancestor
// up to, but excluding, koordinator-root-quota: for each quota on the path and each
// requested resource that its max lists, used + request must not exceed max scaled
// by the oversell rate. A quota with an empty max admits no request at all. 004:
// "a job can be held in the queue by an ancestor quota even when its own quota
// still has capacity." The walk fails with the spec's messages on a cycle of parent
// labels or an ancestor that does not exist.
//
// min is the guaranteed part of a quota; like Koord-Queue, the admission check
// gates on max only and min is reported, not enforced here.
func (c *Cache) CheckUsage(unitName, quota string, req resources.Requests, rate OversellRate) error {
	var visited []string
	seen := map[string]bool{}
	current := quota
	for current != koordv1alpha1.RootQuotaName && current != "" {
		if seen[current] {
			return fmt.Errorf("%w: CheckUsage found cycle reference, item:%s, quotaName:%s, visited quota: %s",
				ErrCycle, unitName, current, strings.Join(visited, ","))
		}
		seen[current] = true
		visited = append(visited, current)
		node, ok := c.quotas[current]
		if !ok {
			return fmt.Errorf("%w: CheckUsage found quota not exist, item:%s, quotaName:%s, visited quota: %s",
				ErrQuotaNotExist, unitName, current, strings.Join(visited, ","))
		}
		if err := node.Value.fits(current, req, rate); err != nil {
			return err
		}
		parent := node.Parent()
		if parent == nil {
			break
		}
		current = parent.Name()
	}
	return nil
}

func (q *quotaInfo) fits(name string, req resources.Requests, rate OversellRate) error {
	if len(q.max) == 0 && len(req) > 0 {
		return fmt.Errorf("%w: limited quotaName:%s, quota spec is empty but queue unit res is not empty", ErrInsufficient, name)
	}
	for _, r := range req.Names() {
		limit, ok := q.max[r]
		if !ok {
			continue
		}
		need := new(big.Rat).SetInt64(resources.Add(q.used[r], req[r]))
		if need.Cmp(rate.scale(limit)) > 0 {
			return fmt.Errorf("%w: limited quotaName:%s, limited resKey:%s, used %d + request %d > max %d × oversell rate %s",
				ErrInsufficient, name, r, q.used[r], req[r], limit, rate.String())
		}
	}
	return nil
}

func (o OversellRate) String() string {
	if o.r == nil {
		return "1"
	}
	return o.r.FloatString(2)
}

// Reserve charges an admitted unit to its quota and every ancestor, the root
// included: issue 14, "koordinator-root-quota and every quota on a unit's chain
// are charged with its usage, the root included". That is one level more than
// CheckUsage walks (it stops below the root, 004: "up to, but excluding,
// koordinator-root-quota"): the root's usage is reported, never checked. A
// chain broken by an ancestor that does not exist is charged up to the break.
// Reserving the same unit twice is a no-op.
func (c *Cache) Reserve(uid types.UID, quota string, req resources.Requests) error {
	if _, ok := c.reserved[uid]; ok {
		return nil
	}
	if _, ok := c.quotas[quota]; !ok {
		return fmt.Errorf("reserving unit %s: quota %s does not exist", uid, quota)
	}
	var path []string
	c.quotas[quota].Ancestors(func(n *hierarchy.Cohort[struct{}, *quotaInfo]) bool {
		if n.Name() == koordv1alpha1.RootQuotaName {
			c.rootUsed.Add(req)
			path = append(path, n.Name())
			return false
		}
		if n.Value == nil {
			return false
		}
		n.Value.used.Add(req)
		path = append(path, n.Name())
		return true
	})
	c.reserved[uid] = reservation{quota: quota, request: req, path: path}
	return nil
}

// Unreserve releases what Reserve charged, on the same quotas it charged.
func (c *Cache) Unreserve(uid types.UID) {
	res, ok := c.reserved[uid]
	if !ok {
		return
	}
	delete(c.reserved, uid)
	for _, name := range res.path {
		if name == koordv1alpha1.RootQuotaName {
			release(c.rootUsed, res.request)
			continue
		}
		node, ok := c.tree.Cohort(name)
		if !ok || node.Value == nil {
			continue
		}
		release(node.Value.used, res.request)
	}
}

// release takes req off used, dropping resources that reach zero.
func release(used, req resources.Requests) {
	for r, v := range req {
		used[r] = resources.Sub(used[r], v)
		if used[r] == 0 {
			delete(used, r)
		}
	}
}

// Used returns the usage charged to a quota (its own units and its children's),
// as quantities, for ElasticQuota status.used; nil for a quota that does not
// exist. koordinator-root-quota always exists here, written as an ElasticQuota
// or not: its usage is that of every admitted unit whose chain reaches it.
func (c *Cache) Used(name string) corev1.ResourceList {
	if name == koordv1alpha1.RootQuotaName {
		return quantities(c.rootUsed)
	}
	node, ok := c.quotas[name]
	if !ok {
		return nil
	}
	return quantities(node.Value.used)
}

func quantities(req resources.Requests) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, r := range req.Names() {
		out[r] = resources.ToQuantity(r, req[r])
	}
	return out
}

// HasQuota reports whether an ElasticQuota of that name was upserted (and not
// deleted).
func (c *Cache) HasQuota(name string) bool {
	_, ok := c.quotas[name]
	return ok
}

// Names lists the quotas, sorted.
func (c *Cache) Names() []string {
	names := make([]string, 0, len(c.quotas))
	for n := range c.quotas {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func canonical(list corev1.ResourceList, path string) (resources.Requests, error) {
	out := resources.Requests{}
	for name, q := range list {
		v, err := resources.ToCanonical(name, q)
		if err != nil {
			return nil, fmt.Errorf("%s[%s]: %w", path, name, err)
		}
		out[name] = v
	}
	return out, nil
}

// RequestOf converts a QueueUnit's spec.resource (or any resource list) into
// canonical units.
func RequestOf(list corev1.ResourceList) (resources.Requests, error) {
	return canonical(list, "spec.resource")
}
