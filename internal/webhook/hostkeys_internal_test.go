package webhook

import (
	"slices"
	"testing"
)

// TestHostKeysFindOverlaps: a claim finds every held hostname it overlaps
// (the same name, a wildcard covering it, names below a wildcard) and no
// other, through the keys the guard indexes and asks.
func TestHostKeysFindOverlaps(t *testing.T) {
	for _, tc := range []struct {
		held, claim string
		overlap     bool
	}{
		{"shop.apps.example.com", "shop.apps.example.com", true},
		{"api.cart.apps.example.com", "*.cart.apps.example.com", true},
		{"a.b.cart.apps.example.com", "*.cart.apps.example.com", true},
		{"*.wild.apps.example.com", "x.wild.apps.example.com", true},
		{"*.wild.apps.example.com", "x.y.wild.apps.example.com", true},
		{"*.wild.apps.example.com", "*.apps.example.com", true},
		{"*.apps.example.com", "*.wild.apps.example.com", true},
		{"cart.apps.example.com", "*.cart.apps.example.com", false},
		{"*.cart.apps.example.com", "cart.apps.example.com", false},
		{"shop.apps.example.com", "cart.apps.example.com", false},
		{"evilcart.apps.example.com", "*.cart.apps.example.com", false},
	} {
		held := heldKeys([]string{tc.held})
		got := slices.ContainsFunc(overlapKeys(tc.claim), func(k string) bool { return slices.Contains(held, k) })
		if got != tc.overlap {
			t.Errorf("held %s, claim %s: overlap %v, want %v (held keys %v, asked %v)", tc.held, tc.claim, got, tc.overlap, held, overlapKeys(tc.claim))
		}
	}
}
