package v1beta2

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Option changes how Load and Decode default a Configuration.
type Option func(*loadOptions)

type loadOptions struct {
	env Environment
}

// WithEnvironment supplies what defaulting may read from outside the file, such as
// the pod's namespace (see EnvironmentFromServiceAccount).
func WithEnvironment(env Environment) Option {
	return func(o *loadOptions) { o.env = env }
}

// InvalidError is returned by Load and Decode when the file is readable but wrong.
// It keeps the field errors so that callers (and tests) can check which field was
// refused; its message names every one of them.
type InvalidError struct {
	// Source is the file name, or "configuration" for Decode.
	Source string
	// Errs has one entry per refused field, with its full path.
	Errs field.ErrorList
}

func (e *InvalidError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, fe := range e.Errs {
		msgs[i] = fe.Error()
	}
	return fmt.Sprintf("invalid %s: %s", e.Source, strings.Join(msgs, "; "))
}

// Load reads, strictly decodes, defaults and validates a Configuration file.
func Load(path string, opts ...Option) (*Configuration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading configuration file: %w", err)
	}
	cfg, err := decode(data, path, opts)
	if err != nil {
		var invalid *InvalidError
		if errors.As(err, &invalid) {
			return nil, err
		}
		return nil, fmt.Errorf("loading configuration file %s: %w", path, err)
	}
	return cfg, nil
}

// Decode is Load for bytes already in memory (YAML or JSON).
func Decode(data []byte, opts ...Option) (*Configuration, error) {
	return decode(data, "configuration", opts)
}

// Default returns the Configuration that an empty file (apiVersion and kind only)
// would give: what the manager runs with when no --config is passed.
func Default(opts ...Option) *Configuration {
	o := loadOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	cfg := &Configuration{}
	SetDefaults(cfg, o.env)
	return cfg
}

func decode(data []byte, source string, opts []Option) (*Configuration, error) {
	o := loadOptions{}
	for _, opt := range opts {
		opt(&o)
	}

	// YAMLToJSONStrict refuses duplicate keys, which plain YAML would resolve by
	// keeping the last one without a word.
	jsonData, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	cfg := &Configuration{}
	strictErrs, err := kjson.UnmarshalStrict(jsonData, cfg)
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}

	// apiVersion and kind come first: if they are wrong, complaints about fields
	// would only be noise.
	if errs := validateTypeMeta(cfg); len(errs) > 0 {
		return nil, &InvalidError{Source: source, Errs: errs}
	}
	if errs := strictFieldErrors(strictErrs); len(errs) > 0 {
		return nil, &InvalidError{Source: source, Errs: errs}
	}

	SetDefaults(cfg, o.env)
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, &InvalidError{Source: source, Errs: errs}
	}
	return cfg, nil
}

func validateTypeMeta(cfg *Configuration) field.ErrorList {
	var errs field.ErrorList
	switch cfg.APIVersion {
	case GroupVersion.String():
	case "":
		errs = append(errs, field.Required(field.NewPath("apiVersion"), "must be "+GroupVersion.String()))
	case "config.kueue.x-k8s.io/v1beta1":
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), cfg.APIVersion,
			"v1beta1 is no longer read since Kueue v0.20; migrate the file to "+GroupVersion.String()))
	default:
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), cfg.APIVersion, []string{GroupVersion.String()}))
	}
	switch cfg.Kind {
	case Kind:
	case "":
		errs = append(errs, field.Required(field.NewPath("kind"), "must be "+Kind))
	default:
		errs = append(errs, field.NotSupported(field.NewPath("kind"), cfg.Kind, []string{Kind}))
	}
	return errs
}

// knownUnsupportedFields explains the fields that exist in Kueue's Configuration
// (now or in v1beta1) but that Quokka refuses, so that the error tells the user
// what to do instead of only "unknown field".
var knownUnsupportedFields = map[string]string{
	"fairSharing.enable":              "removed in config v1beta2 (Kueue v0.15): fair sharing is on when the fairSharing block is present; delete the field",
	"waitForPodsReady.enable":         "removed in config v1beta2: waitForPodsReady is always on (Kueue v0.19); delete the field",
	"multiKueue":                      "MultiKueue is not implemented by Quokka",
	"resources.deviceClassMappings":   "dynamic resource allocation (device class mappings) is not implemented by Quokka",
	"tls":                             "not implemented by Quokka",
	"visibilityServer":                "the visibility API is not implemented by Quokka",
	"queueVisibility":                 "removed from Kueue's configuration; not implemented by Quokka",
	"metrics.customLabels":            "custom metric labels are not implemented by Quokka",
	"integrations.externalFrameworks": "external frameworks are not implemented by Quokka",
	"integrations.podOptions":         "removed in config v1beta2; use managedJobsNamespaceSelector",
}

// strictFieldErrors turns the strict decoder's findings (unknown and duplicate
// fields, each with its path) into field errors.
func strictFieldErrors(strictErrs []error) field.ErrorList {
	var errs field.ErrorList
	for _, se := range strictErrs {
		fe, ok := se.(interface{ FieldPath() string })
		if !ok {
			errs = append(errs, field.InternalError(nil, se))
			continue
		}
		path := field.NewPath(fe.FieldPath())
		switch {
		case strings.HasPrefix(se.Error(), "duplicate field"):
			errs = append(errs, field.Duplicate(path, fe.FieldPath()))
		case knownUnsupportedFields[fe.FieldPath()] != "":
			errs = append(errs, field.Forbidden(path, knownUnsupportedFields[fe.FieldPath()]))
		default:
			errs = append(errs, field.Forbidden(path,
				"unknown field: not part of config.kueue.x-k8s.io/v1beta2 Configuration as Quokka implements it"))
		}
	}
	return errs
}
