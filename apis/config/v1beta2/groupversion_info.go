package v1beta2

import "k8s.io/apimachinery/pkg/runtime/schema"

// GroupVersion is the apiVersion a Configuration file must declare. It is not served
// by the API server, so it is deliberately not registered in any runtime.Scheme.
var GroupVersion = schema.GroupVersion{Group: "config.kueue.x-k8s.io", Version: "v1beta2"}

// Kind is the only kind this package decodes.
const Kind = "Configuration"
