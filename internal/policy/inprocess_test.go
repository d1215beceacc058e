package policy

import "testing"

// TestInProcessRulesReadMetadataOnly: offline, the in-process rules see
// objects reduced to their metadata (metadataOf), which they must not
// notice: every case of the policy table gets the same violations from the
// whole objects, as the API server passes them.
func TestInProcessRulesReadMetadataOnly(t *testing.T) {
	judged := 0
	for name, tc := range testCases {
		thin := inProcess(tc.req, testTenants)
		full := judgeInProcess(tc.req, testTenants, tc.req.Object, tc.req.OldObject)
		if thin.ToAggregate() == nil && full.ToAggregate() == nil {
			continue
		}
		judged++
		if thin.ToAggregate() == nil || full.ToAggregate() == nil || thin.ToAggregate().Error() != full.ToAggregate().Error() {
			t.Errorf("%s: metadata only %v, whole objects %v", name, thin, full)
		}
	}
	if judged == 0 {
		t.Fatal("no case of the table breaks an in-process rule: the comparison proves nothing")
	}
	t.Logf("%d cases refused by in-process rules, alike either way", judged)
}
