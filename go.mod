module github.com/vtexec/vtexec

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	github.com/stretchr/testify v1.12.1
	mvdan.cc/sh/v3 v3.14.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
