package manifest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// objectMeta returns the ObjectMeta of any accepted object, for the defaults the API
// server would apply. Every accepted kind except the Configuration embeds one.
func objectMeta(obj any) *metav1.ObjectMeta {
	if m, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if om, ok := m.GetObjectMeta().(*metav1.ObjectMeta); ok {
			return om
		}
	}
	return &metav1.ObjectMeta{}
}
