package ddspeers

import (
	"fmt"
	"sort"
	"strings"
)

// splitName splits a full name "pkg/ns/Type" into its parts.
func splitName(full string) (pkg, ns, name string, err error) {
	parts := strings.Split(full, "/")
	if len(parts) != 3 {
		return "", "", "", fmt.Errorf("ddspeers: type name %q is not pkg/ns/Type", full)
	}
	return parts[0], parts[1], parts[2], nil
}

// DDSTypeName is the name rmw gives a type on the wire:
// "std_msgs/msg/Header" → "std_msgs::msg::dds_::Header_".
func DDSTypeName(full string) string {
	return strings.Join(ddsScope(full), "::")
}

// cName is the C identifier idlc generates for a type.
func cName(full string) string {
	return strings.Join(ddsScope(full), "_")
}

func ddsScope(full string) []string {
	pkg, ns, name, err := splitName(full)
	if err != nil {
		return []string{full}
	}
	return []string{pkg, ns, "dds_", name + "_"}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
