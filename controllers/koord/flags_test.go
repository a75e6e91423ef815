package koord

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"quokka.dev/quokka/internal/cli"
)

// The issue: "--oversellrate (Koord-Queue's spelling), exact, a value ≤ 0 or not
// finite stops the manager naming the flag". The command is refused before it
// looks for a cluster.
func TestOversellRateFlagRefusesBadValues(t *testing.T) {
	for _, v := range []string{"0", "-1", "Inf", "NaN", "1e400", "x", ""} {
		t.Run(v, func(t *testing.T) {
			root := cli.NewRootCommand(cli.Options{Controllers: []cli.Controller{Controller()}})
			var stderr bytes.Buffer
			code := cli.Execute(context.Background(), root, []string{"manager", "--oversellrate=" + v}, &stderr)
			if code == 0 {
				t.Fatalf("--oversellrate=%s accepted", v)
			}
			if !strings.Contains(stderr.String(), "--oversellrate") {
				t.Errorf("error %q does not name the flag", stderr.String())
			}
		})
	}
}

func TestOversellRateFlagIsExact(t *testing.T) {
	var f oversellRateFlag
	if err := f.Set("1.2"); err != nil {
		t.Fatal(err)
	}
	if f.String() != "1.2" || f.rate.String() != "1.20" {
		t.Errorf("flag %s, rate %s", f.String(), f.rate.String())
	}
}

// 004: "the flag --enableParentLimit is accepted by the component but is not
// consulted by any decision". The manager parses it (and logs that it has no
// effect when it starts); an unknown flag would be refused here.
func TestEnableParentLimitIsAccepted(t *testing.T) {
	root := cli.NewRootCommand(cli.Options{Controllers: []cli.Controller{Controller()}})
	mgr, _, err := root.Find([]string{"manager"})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.ParseFlags([]string{"--enableParentLimit", "--oversellrate=1.5", "--defaultReclaimProtectTime=30s"}); err != nil {
		t.Fatalf("Koord-Queue's flags refused: %v", err)
	}
	if err := mgr.ParseFlags([]string{"--enableParentLimits"}); err == nil {
		t.Fatal("a misspelt flag was accepted: the test above proves nothing")
	}
}
