package demo

// The demo memory: three scopes an operator might really run, each with the
// entities its agent talks about. Facts are written as an agent would record
// them; the generator spreads them over time and multiplies the recurring ones
// (moods, states, observations) into a few hundred rows.

type entitySpec struct {
	name string
	kind string
}

// factSpec is one fact. ageDays is how long ago it was last confirmed.
type factSpec struct {
	entity     string
	key        string
	content    string
	durability string
	category   string
	confidence float64
	ageDays    float64
}

type decisionSpec struct {
	entity       string
	key          string
	decision     string
	alternatives []string
	reasoning    string
	decidedBy    string
	ageDays      float64
	open         bool // reopened by a reviewer
}

// obligationSpec has a deadline inDays from now (negative: overdue).
type obligationSpec struct {
	entity  string
	key     string
	content string
	inDays  float64
}

type nodeSpec struct {
	content    string
	marker     string // "", durable, transient or expired
	ageMinutes float64
	importance float64
	ttlSeconds int32
	props      map[string]string
}

// recurring facts are observed many times, on different days, with small
// variations; each variant becomes its own row.
type recurringSpec struct {
	entity     string
	key        string
	durability string
	category   string
	variants   []string
	everyDays  float64
}

type scopeSpec struct {
	name        string
	entities    []entitySpec
	facts       []factSpec
	recurring   []recurringSpec
	decisions   []decisionSpec
	obligations []obligationSpec
	nodes       []nodeSpec
}

func scopes() []scopeSpec {
	return []scopeSpec{
		{
			name: "personal-assistant",
			entities: []entitySpec{
				{"Edmund Hale", "person"}, {"Maya Hale", "person"}, {"Juniper", "pet"},
				{"Household", "group"}, {"Fernhill Clinic", "organisation"},
			},
			facts: []factSpec{
				{"Edmund Hale", "occupation", "Edmund is a software engineer at a logistics company.", "permanent", "identity", 0.95, 40},
				{"Edmund Hale", "birthplace", "Edmund was born in Leeds.", "permanent", "identity", 0.9, 200},
				{"Edmund Hale", "native_language", "Edmund's first language is English; he is learning Portuguese.", "permanent", "identity", 0.85, 120},
				{"Edmund Hale", "lives_in", "Edmund lives in Austin, Texas.", "long_term", "observation", 0.9, 30},
				{"Edmund Hale", "employer", "Edmund works for Northwind Freight.", "long_term", "observation", 0.85, 60},
				{"Edmund Hale", "editor_theme", "Edmund prefers dark mode in every editor.", "long_term", "preference", 0.9, 15},
				{"Edmund Hale", "coffee", "Edmund drinks his coffee black, no sugar.", "long_term", "preference", 0.8, 90},
				{"Edmund Hale", "meeting_time", "Edmund prefers meetings after 10:00.", "long_term", "preference", 0.75, 45},
				{"Edmund Hale", "introvert", "Edmund describes himself as an introvert.", "permanent", "identity", 0.7, 150},
				{"Edmund Hale", "allergy", "Edmund is allergic to penicillin.", "permanent", "identity", 0.98, 300},
				{"Edmund Hale", "run", "Edmund runs 5 km every Tuesday and Thursday morning.", "long_term", "routine", 0.85, 20},
				{"Edmund Hale", "medication", "Edmund takes his medication at 9am.", "long_term", "routine", 0.9, 10},
				{"Edmund Hale", "weekly_review", "Edmund does a weekly review on Sunday evenings.", "long_term", "routine", 0.7, 35},
				{"Edmund Hale", "travel", "Edmund is in Lisbon until Friday for a conference.", "short_term", "state", 0.8, 2},
				{"Edmund Hale", "project_focus", "Edmund is working to a deadline on the routing rewrite this week.", "short_term", "state", 0.75, 4},
				{"Edmund Hale", "knee", "Edmund is resting a sprained knee and skipping runs.", "short_term", "state", 0.7, 8},
				{"Maya Hale", "relation", "Maya is Edmund's sister.", "permanent", "identity", 0.95, 100},
				{"Maya Hale", "lives_in", "Maya lives in Porto.", "long_term", "observation", 0.8, 70},
				{"Maya Hale", "birthday", "Maya's birthday is on 14 March.", "permanent", "identity", 0.9, 250},
				{"Juniper", "species", "Juniper is Edmund's border collie, six years old.", "permanent", "identity", 0.9, 80},
				{"Juniper", "food", "Juniper eats grain-free kibble twice a day.", "long_term", "routine", 0.8, 25},
				{"Household", "bins", "Recycling goes out on Wednesday nights.", "long_term", "routine", 0.85, 12},
				{"Household", "wifi", "The router was replaced in October; the network name did not change.", "long_term", "observation", 0.6, 50},
				{"Fernhill Clinic", "gp", "Dr. Okafor is Edmund's GP at Fernhill Clinic.", "long_term", "observation", 0.85, 110},
			},
			recurring: []recurringSpec{
				{"Edmund Hale", "mood", "ephemeral", "mood", []string{
					"Edmund said he hates mornings.", "Edmund is feeling stressed about the release.",
					"Edmund is in a good mood after the demo went well.", "Edmund is tired today.",
					"Edmund is frustrated with the flaky test suite.", "Edmund is feeling relaxed this evening.",
				}, 0.4},
				{"Edmund Hale", "activity", "ephemeral", "state", []string{
					"Edmund is on a call with the routing team.", "Edmund is cooking dinner.",
					"Edmund is out walking Juniper.", "Edmund is reviewing pull requests.",
				}, 0.25},
				{"Household", "groceries", "short_term", "observation", []string{
					"The fridge is low on milk.", "Coffee beans are running out.",
					"Dog food was reordered.", "The freezer needs defrosting.",
				}, 3},
			},
			decisions: []decisionSpec{
				{"Household", "package_manager", "We use pnpm, not npm, for Edmund's side projects.",
					[]string{"npm", "yarn"}, "pnpm's content-addressed store saves disk on the laptop and its strict node_modules caught two phantom dependencies.", "Edmund Hale", 40, false},
				{"Edmund Hale", "calendar", "Edmund's work calendar is the single source for availability.",
					[]string{"personal calendar", "both calendars merged"}, "Double bookings happened twice when the assistant checked the personal calendar; work meetings move more often.", "Edmund Hale", 25, false},
				{"Household", "vet", "Juniper stays with the Riverside vet practice.",
					[]string{"Fernhill Vets", "mobile vet"}, "Riverside has Juniper's full history and is open on Saturdays.", "Maya Hale", 90, true},
			},
			obligations: []obligationSpec{
				{"Edmund Hale", "conference_talk", "Present the routing talk at the Lisbon conference.", 3},
				{"Edmund Hale", "tax_return", "File the self-assessment tax return.", 20},
				{"Edmund Hale", "passport", "Renew Edmund's passport before it expires.", 45},
				{"Maya Hale", "birthday_gift", "Send Maya's birthday gift to Porto.", -2},
				{"Juniper", "vaccination", "Juniper's booster vaccination at the vet.", -6},
				{"Household", "insurance", "Renew the home insurance policy.", 9},
			},
			nodes: []nodeSpec{
				{"Edmund asked to move Thursday's run to Friday.", "", 40, 0.5, 0, nil},
				{"Edmund mentioned he is thinking about learning the cello.", "durable", 25, 0.3, 0, nil},
				{"Edmund seems annoyed right now.", "transient", 5, 0.4, 0, nil},
				{"Calendar sync in progress, 3 of 7 calendars done.", "transient", 12, 0.6, 0, nil},
				{"Calendar sync in progress, 6 of 7 calendars done.", "expired", 10, 0.6, 0, nil},
				{"Calendar sync finished: 7 calendars, 212 events.", "durable", 8, 0.7, 0, nil},
				{"Edmund said he prefers window seats on flights.", "", 90, 0.5, 0,
					map[string]string{"entity": "Edmund Hale", "key": "seat", "category": "preference", "fact_durability": "long_term"}},
				{"Waiting for the pharmacy to confirm the refill.", "transient", 30, 0.5, 3600, nil},
			},
		},
		{
			name: "acme-support",
			entities: []entitySpec{
				{"Acme Robotics", "organisation"}, {"Priya Raman", "person"}, {"Tom Becker", "person"},
				{"Order 88213", "order"}, {"Billing portal", "system"}, {"Support team", "group"},
			},
			facts: []factSpec{
				{"Acme Robotics", "plan", "Acme Robotics is on the Enterprise plan.", "long_term", "observation", 0.95, 14},
				{"Acme Robotics", "region", "Acme Robotics' data must stay in the EU region.", "permanent", "identity", 0.95, 200},
				{"Acme Robotics", "sla", "Acme Robotics has a 4-hour first-response SLA.", "long_term", "observation", 0.9, 60},
				{"Acme Robotics", "contact_channel", "Acme prefers email over phone for non-urgent issues.", "long_term", "preference", 0.8, 33},
				{"Priya Raman", "role", "Priya Raman is Acme's head of operations and the main contact.", "long_term", "observation", 0.9, 20},
				{"Priya Raman", "timezone", "Priya works from Berlin (CET).", "long_term", "observation", 0.85, 75},
				{"Priya Raman", "tone", "Priya prefers short answers with the fix first.", "long_term", "preference", 0.75, 18},
				{"Tom Becker", "role", "Tom Becker is Acme's billing administrator.", "long_term", "observation", 0.8, 40},
				{"Order 88213", "status", "Order 88213 shipped via DHL, tracking 4471-0921.", "short_term", "state", 0.9, 3},
				{"Order 88213", "issue", "Order 88213 arrived with a cracked gripper housing.", "short_term", "observation", 0.85, 2},
				{"Billing portal", "outage", "The billing portal shows a 502 for Acme users since 09:40.", "ephemeral", "state", 0.7, 0.2},
				{"Billing portal", "invoice_format", "Invoices are issued as PDF with a UBL attachment.", "long_term", "observation", 0.8, 100},
				{"Support team", "escalation", "Escalations go to the on-call lead through the #support-escalations channel.", "long_term", "routine", 0.9, 30},
				{"Support team", "handover", "Shift handover happens at 08:00 and 16:00 UTC.", "long_term", "routine", 0.85, 45},
			},
			recurring: []recurringSpec{
				{"Acme Robotics", "ticket", "short_term", "observation", []string{
					"Acme opened a ticket about robot arm calibration drift.", "Acme asked for an updated security questionnaire.",
					"Acme reported slow firmware downloads from the portal.", "Acme requested two extra seats for the dashboard.",
					"Acme asked how to rotate their API key.", "Acme reported a duplicated invoice line.",
				}, 2.5},
				{"Priya Raman", "mood", "ephemeral", "mood", []string{
					"Priya sounded frustrated about the repeated outage.", "Priya was pleased with the quick fix.",
					"Priya is impatient about the RMA timeline.",
				}, 1},
				{"Billing portal", "status", "ephemeral", "state", []string{
					"Roll-up of billing events is still syncing, ETA about 30 s.", "Invoice export queue is backed up.",
					"Billing portal responding normally again.",
				}, 0.3},
			},
			decisions: []decisionSpec{
				{"Acme Robotics", "rma_policy", "Cracked housings are replaced without asking for photos first.",
					[]string{"require photos before RMA", "refund instead of replacement"}, "Photos delayed three RMAs by a week each and never changed the outcome; the part costs less than the delay.", "Support team", 30, false},
				{"Acme Robotics", "support_channel", "All Acme communication goes through the shared ticket queue, not direct messages.",
					[]string{"direct Slack channel", "named account manager only"}, "Direct messages were lost during two shift handovers; the queue keeps history and the SLA clock.", "Priya Raman", 55, false},
				{"Billing portal", "currency", "Acme is invoiced in EUR.",
					[]string{"USD", "GBP"}, "Their finance team books in EUR and asked to stop the conversion fees.", "Tom Becker", 120, false},
			},
			obligations: []obligationSpec{
				{"Acme Robotics", "rma_88213", "Ship the replacement gripper housing for order 88213.", 2},
				{"Acme Robotics", "qbr", "Quarterly business review with Acme.", 12},
				{"Priya Raman", "followup_outage", "Send Priya the outage post-mortem.", -1},
				{"Tom Becker", "credit_note", "Issue the credit note for the duplicated invoice line.", 5},
			},
			nodes: []nodeSpec{
				{"Slack roll-up is still syncing -- ETA ~30s", "transient", 3, 0.9, 0, nil},
				{"Slack roll-up is still syncing -- ETA ~15s", "expired", 2, 0.9, 0, nil},
				{"Slack roll-up finished: 41 threads summarised for Acme.", "durable", 1, 0.7, 0, nil},
				{"Priya asked whether the RMA can ship by Wednesday.", "", 20, 0.6, 0, nil},
				{"Ticket queue depth is 37 right now.", "transient", 15, 0.3, 0, nil},
				{"We should require photos before every RMA.", "durable", 6, 0.5, 0,
					map[string]string{"entity": "Acme Robotics", "key": "rma_policy", "category": "decision"}},
				{"Acme's renewal date is 1 February.", "durable", 50, 0.8, 0,
					map[string]string{"entity": "Acme Robotics", "key": "renewal", "category": "obligation", "fact_durability": "short_term"}},
			},
		},
		{
			name: "platform-ops",
			entities: []entitySpec{
				{"api-gateway", "service"}, {"billing-db", "database"}, {"Deploy pipeline", "system"},
				{"On-call rota", "group"}, {"Search cluster", "service"},
			},
			facts: []factSpec{
				{"api-gateway", "runtime", "api-gateway runs on Go 1.26 behind Envoy.", "long_term", "observation", 0.9, 10},
				{"api-gateway", "owner", "The edge team owns api-gateway.", "long_term", "observation", 0.85, 90},
				{"api-gateway", "rate_limit", "api-gateway limits each tenant to 500 requests per second.", "long_term", "observation", 0.8, 40},
				{"billing-db", "engine", "billing-db is PostgreSQL 15 with one synchronous standby.", "long_term", "observation", 0.9, 70},
				{"billing-db", "backup", "billing-db is backed up nightly at 02:00 UTC with 30-day retention.", "long_term", "routine", 0.9, 15},
				{"billing-db", "disk", "billing-db's data volume is 78% full.", "short_term", "state", 0.8, 1},
				{"Deploy pipeline", "freeze", "Deploys are frozen for the payments migration until Thursday.", "short_term", "state", 0.85, 1},
				{"Deploy pipeline", "canary", "Every deploy goes to 5% canary for 20 minutes first.", "long_term", "routine", 0.9, 60},
				{"On-call rota", "primary", "Dana is primary on-call this week.", "short_term", "state", 0.9, 2},
				{"On-call rota", "handoff", "On-call hands off on Mondays at 10:00 local time.", "long_term", "routine", 0.9, 100},
				{"Search cluster", "nodes", "The search cluster runs 6 data nodes across 3 zones.", "long_term", "observation", 0.8, 35},
				{"Search cluster", "reindex", "A full reindex is running on the search cluster.", "ephemeral", "state", 0.7, 0.3},
			},
			recurring: []recurringSpec{
				{"api-gateway", "latency", "ephemeral", "state", []string{
					"api-gateway p99 latency is 180 ms, above the 150 ms objective.", "api-gateway p99 back under 120 ms.",
					"api-gateway error rate spiked to 2% during the deploy.",
				}, 0.3},
				{"billing-db", "replication", "ephemeral", "state", []string{
					"billing-db replication lag is 4 s.", "billing-db replication lag recovered.",
				}, 0.4},
				{"Deploy pipeline", "incident", "short_term", "observation", []string{
					"A deploy was rolled back after failed health checks.", "The pipeline was slow because of a cold build cache.",
					"A flaky integration test blocked two deploys.",
				}, 5},
			},
			decisions: []decisionSpec{
				{"billing-db", "major_upgrade", "billing-db stays on PostgreSQL 15 until the Q3 maintenance window.",
					[]string{"upgrade now with pg_upgrade", "logical replication to a new 17 cluster"}, "The payments migration needs a stable base; upgrading twice in one quarter doubles the risk for no user-visible gain.", "Platform leads", 20, false},
				{"Deploy pipeline", "friday_deploys", "No production deploys after 15:00 on Fridays.",
					[]string{"no Friday deploys at all", "deploy anytime with canary"}, "Three of the last five weekend pages followed Friday evening deploys; mornings still give a full day to watch.", "Head of platform", 75, false},
				{"Search cluster", "engine", "Keep the current search engine rather than moving to a hosted service.",
					[]string{"hosted search", "PostgreSQL full-text only"}, "Hosted pricing at our volume was 3x the current cost and data residency was unclear.", "Platform leads", 140, false},
			},
			obligations: []obligationSpec{
				{"billing-db", "disk_expansion", "Expand billing-db's data volume before it reaches 85%.", 4},
				{"api-gateway", "cert_renewal", "Renew the api-gateway TLS certificate.", 16},
				{"On-call rota", "postmortem", "Publish the post-mortem for last week's gateway incident.", -3},
			},
			nodes: []nodeSpec{
				{"Deploy 4812 is rolling out, 40% of pods updated.", "transient", 4, 0.6, 0, nil},
				{"Deploy 4812 is rolling out, 80% of pods updated.", "expired", 2, 0.6, 0, nil},
				{"Deploy 4812 completed; error rate unchanged.", "durable", 1, 0.6, 0, nil},
				{"Dana prefers to be paged by phone, not SMS.", "", 60, 0.5, 0,
					map[string]string{"entity": "On-call rota", "key": "dana_paging", "category": "preference"}},
				{"Disk usage alert on billing-db is firing.", "transient", 7, 0.8, 900, nil},
				{"The team decided to keep the gateway timeouts at 30 s.", "durable", 35, 0.6, 0, nil},
			},
		},
	}
}
