module github.com/gpusim/gpusim

go 1.26

require github.com/go-gl/mathgl v1.2.0

require github.com/vulkan-go/vulkan v0.0.0-20221209234627-c0a353ae26c8
