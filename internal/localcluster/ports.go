package localcluster

import (
	"fmt"
	"net"
)

// FreePorts returns n distinct loopback ports that were free a moment ago;
// holding all listeners until the end keeps them distinct.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
