package testenv

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestZZDebug(t *testing.T) {
	e := startTimed(t, Options{Dir: "/tmp/ll-debug"})
	c := clientFor(t, e.Config)
	for i := range 3 {
		ns, _ := c.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "dbg-"}}, metav1.CreateOptions{})
		begin := time.Now()
		c.CoreV1().Namespaces().Delete(t.Context(), ns.Name, metav1.DeleteOptions{})
		for {
			_, err := c.CoreV1().Namespaces().Get(context.Background(), ns.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("ns %d deleted in %v", i, time.Since(begin))
	}
	begin := time.Now()
	t.Log(e.Stop())
	t.Logf("stop took %v", time.Since(begin))
}
