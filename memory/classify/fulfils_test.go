package classify

import "testing"

// TestFulfils: a statement that the obligation's action was done, about the
// thing it names, fulfils it; a denial, a question, another thing or
// another action does not.
func TestFulfils(t *testing.T) {
	for _, tc := range []struct {
		obligation, statement string
		want                  bool
	}{
		{"I must pay the water bill by Friday.", "Paid the water bill.", true},
		{"I must pay the water bill by Friday.", "I paid the bills this morning.", true},
		{"Need to renew the passport before March.", "Renewed my passport today!", true},
		{"Remember to send Ana the signed contract.", "Sent the contract to Ana.", true},
		{"Sam has to submit the expense report by Monday.", "Sam submitted the expense report.", true},
		{"We need to ship the hotfix for checkout tonight.", "Hotfix shipped for checkout.", true},
		{"We need to ship the hotfix for checkout tonight.", "We shipped the checkout hotfix.", true},
		{"Pay the invoice by the 5th.", "The invoice is paid.", true},
		{"Globex must sign the renewal by Dec 15.", "Globex signed the renewal this morning.", true},
		{"I should book the dentist appointment.", "Booked the dentist for Tuesday.", true},
		{"File the quarterly taxes by April 15.", "Quarterly taxes: done.", true},
		{"Need to apply for the visa.", "Applied for the visa yesterday.", true},
		{"I must pay the water bill by Friday.", "I haven't paid the water bill yet.", false},
		{"I must pay the water bill by Friday.", "Did you pay the water bill?", false},
		{"I must pay the water bill by Friday.", "Paid the electricity company a visit.", false},
		{"I must pay the water bill by Friday.", "The water bill arrived.", false},
		{"Remember to send Ana the signed contract.", "Ana sent me a message.", false},
		{"I must pay the water bill by Friday.", "I still need to pay the water bill, not done.", false},
		{"", "Paid the water bill.", false},
	} {
		if got := Fulfils(tc.obligation, tc.statement); got != tc.want {
			t.Errorf("Fulfils(%q, %q) = %v, want %v", tc.obligation, tc.statement, got, tc.want)
		}
	}
}
