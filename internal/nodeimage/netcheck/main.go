// Command netcheck is the local node's test server: it answers GET / with
// its host name, and GET /dial?addr=HOST:PORT by fetching http://HOST:PORT/
// itself, so a test learns what this pod reaches.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"
)

// dialTimeout bounds one /dial: a connection a NetworkPolicy drops never
// answers, so blocked means no answer within it.
const dialTimeout = 3 * time.Second

// Result is what /dial answers, as JSON.
type Result struct {
	Reached bool `json:"reached"`
	// Failure is "timeout" (no answer within dialTimeout: a drop),
	// "refused", or "error" for anything else, such as no route.
	Failure string `json:"failure,omitempty"`
	Body    string `json:"body,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	listen := flag.String("listen", ":8080", "address to serve on")
	flag.Parse()
	host, _ := os.Hostname()
	client := &http.Client{Timeout: dialTimeout}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "netcheck %s\n", host)
	})
	mux.HandleFunc("GET /dial", func(w http.ResponseWriter, r *http.Request) {
		addr := r.URL.Query().Get("addr")
		if addr == "" {
			http.Error(w, "query parameter addr is required: HOST:PORT", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), dialTimeout)
		defer cancel()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(fetch(ctx, client, "http://"+addr+"/"))
	})
	server := &http.Server{Addr: *listen, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(server.ListenAndServe())
}

func fetch(ctx context.Context, client *http.Client, url string) Result {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Result{Error: err.Error()}
	}
	resp, err := client.Do(req)
	if err != nil {
		return Result{Failure: classify(err), Error: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if err != nil {
		return Result{Error: err.Error()}
	}
	return Result{Reached: resp.StatusCode == http.StatusOK, Body: string(body)}
}

func classify(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	default:
		return "error"
	}
}
