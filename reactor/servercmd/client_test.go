package servercmd

import "testing"

func TestValidClientName(t *testing.T) {
	for name, ok := range map[string]bool{"app-1": true, "": true, "a b": false, "a\nb": false, "é": false} {
		if ValidClientName([]byte(name)) != ok {
			t.Errorf("ValidClientName(%q) != %v", name, ok)
		}
	}
}
