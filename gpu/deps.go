//go:build gpusim_deps

// This file pins github.com/vulkan-go/vulkan in go.mod for the Vulkan
// backend, which will import it for real; until then it builds only with
// the gpusim_deps tag (go build -tags gpusim_deps ./gpu).
package gpu

import _ "github.com/vulkan-go/vulkan"
