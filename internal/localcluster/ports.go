package localcluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreePorts returns n distinct loopback ports that were free a moment ago;
// holding all listeners until the end keeps them distinct. They are taken
// below the kernel's ephemeral range, which every outgoing connection of
// the processes around draws from: a port there can be taken by a client
// between this choice and the server's bind.
func FreePorts(n int) ([]int, error) {
	low := ephemeralLow()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 1000 {
			return nil, fmt.Errorf("find a free port below %d: none after %d tries", low, tries)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(low/2+rand.IntN(low/2))))
		if err != nil {
			continue // taken
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range, Linux's
// default where it cannot be read.
func ephemeralLow() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low < 2048 {
		return 32768
	}
	return low
}
