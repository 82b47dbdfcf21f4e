module github.com/vtexec/vtexec

go 1.26.8

require (
	github.com/creack/pty v1.1.24
	github.com/google/uuid v1.6.0
	github.com/pelletier/go-toml/v2 v2.2.4
	github.com/stretchr/testify v1.12.1
	golang.org/x/term v0.47.0
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/landlock-lsm/go-landlock v0.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.77 // indirect
)
