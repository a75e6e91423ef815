package manifest

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The helpers below express the CRD schema's markers (+kubebuilder:validation:...)
// in Go, with the same messages, so that a manifest the API server would refuse is
// refused here too and the path in the message is the one kubectl would print.

// validateDNSSubdomain checks a name or a reference against the pattern that
// Kubernetes object names and Kueue's *Reference types use.
func validateDNSSubdomain(value string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// validateDNSLabel checks a namespace name or a pod set name.
func validateDNSLabel(value string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// validateRequiredName requires metadata.name and checks its format.
func validateRequiredName(name string, label bool) field.ErrorList {
	path := field.NewPath("metadata", "name")
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if label {
		return validateDNSLabel(name, path)
	}
	return validateDNSSubdomain(name, path)
}

// validateOptionalRef checks a reference that may be empty.
func validateOptionalRef(value string, path *field.Path) field.ErrorList {
	if value == "" {
		return nil
	}
	return validateDNSSubdomain(value, path)
}

// validateEnum checks that a string field holds one of the allowed values; the
// empty string means "unset" and is accepted when allowEmpty is true (the API
// server then applies the default).
func validateEnum[T ~string](value T, path *field.Path, allowEmpty bool, allowed ...T) field.ErrorList {
	if value == "" {
		if allowEmpty {
			return nil
		}
		return field.ErrorList{field.Required(path, "")}
	}
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	strs := make([]string, len(allowed))
	for i, a := range allowed {
		strs[i] = string(a)
	}
	return field.ErrorList{field.NotSupported(path, string(value), strs)}
}

// validateNonNegative checks a quantity that must be 0 or more; what names the
// field in the CRD's message ("nominalQuota must be non-negative").
func validateNonNegative(q resource.Quantity, path *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(path, q.String(), "must be non-negative")}
	}
	return nil
}

// validateMaxItems is +kubebuilder:validation:MaxItems.
func validateMaxItems(n, max int, path *field.Path) field.ErrorList {
	if n > max {
		return field.ErrorList{field.TooMany(path, n, max)}
	}
	return nil
}

// validateItemCount is MinItems and MaxItems together.
func validateItemCount(n, min, max int, path *field.Path) field.ErrorList {
	if n < min {
		if n == 0 {
			return field.ErrorList{field.Required(path, fmt.Sprintf("must have at least %d item(s)", min))}
		}
		return field.ErrorList{field.Invalid(path, n, fmt.Sprintf("must have at least %d items", min))}
	}
	return validateMaxItems(n, max, path)
}

// validateLength is MinLength and MaxLength on a string.
func validateLength(value string, min, max int, path *field.Path) field.ErrorList {
	if len(value) < min {
		if value == "" {
			return field.ErrorList{field.Required(path, "")}
		}
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be at least %d characters long", min))}
	}
	if len(value) > max {
		return field.ErrorList{field.TooLong(path, value, max)}
	}
	return nil
}

// validateLabelSelector checks a namespaceSelector or a candidate selector.
func validateLabelSelector(sel *metav1.LabelSelector, path *field.Path) field.ErrorList {
	if sel == nil {
		return nil
	}
	return metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, path)
}

// validateWeight checks a fairSharing weight.
func validateWeight(w *resource.Quantity, path *field.Path) field.ErrorList {
	if w == nil {
		return nil
	}
	if w.Sign() > 0 && w.Cmp(resource.MustParse("1n")) <= 0 {
		// Kueue's rule: a weight this small collapses to 0 in its shares.
		return field.ErrorList{field.Invalid(path, w.String(), "When not 0, weight must be > 10e-9")}
	}
	return validateNonNegative(*w, path)
}

// quoteList renders names for a message: "cpu, memory, nvidia.com/gpu".
func quoteList[T ~string](items []T) string {
	strs := make([]string, len(items))
	for i, s := range items {
		strs[i] = string(s)
	}
	return strings.Join(strs, ", ")
}
