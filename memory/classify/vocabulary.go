package classify

import "slices"

// One key per concept. Writers name the same attribute in many ways (an
// agent says "company", another "works_at", the classifier "employer"), and
// supersession, merging, duplicate notes and locks pair facts by entity and
// key: two spellings of one attribute would keep two current values. So
// every key an automated writer gives, or the classifier makes, is read as
// the concept's canonical key (CanonicalKey). A key outside this vocabulary
// is its own concept and is kept as written.

// keySynonyms maps each synonym to its canonical key.
var keySynonyms = map[string]string{}

// keyConcepts lists each canonical key with its synonyms.
var keyConcepts = map[string][]string{
	"employer": {"company", "works_at", "work_at", "works_for", "employed_by", "workplace", "current_employer",
		"employer_name", "organisation", "organization", "job_company", "company_name", "organization_name",
		"organisation_name"},
	"home_city": {"lives_in", "live_in", "city", "current_city", "residence", "based_in", "home_location"},
	"occupation": {"job", "job_title", "profession", "work_as", "works_as", "career", "role", "title", "job_role",
		"position", "job_position", "current_role", "current_job"},
	"mood":            {"feeling", "feelings", "emotion", "emotional_state", "current_mood"},
	"timezone":        {"time_zone", "tz"},
	"email":           {"email_address", "e_mail"},
	"phone":           {"phone_number", "mobile", "telephone", "mobile_number", "cell", "cell_phone", "phone_no"},
	"birthday":        {"dob", "date_of_birth", "birth_date", "birthdate"},
	"born_in":         {"birthplace", "place_of_birth"},
	"native_language": {"mother_tongue", "first_language"},
	"diet": {"dietary_preference", "dietary_restriction", "diet_type", "dietary_restrictions",
		"dietary_requirements"},
	"drink":    {"favourite_drink", "favorite_drink", "beverage"},
	"theme":    {"ui_theme", "color_scheme", "colour_scheme"},
	"pronouns": {"pronoun"},
	"on_call":  {"oncall", "on_call_engineer", "on_call_rotation", "pager", "pager_duty"},
	"manager":  {"boss", "reports_to", "line_manager"},
	"partner":  {"spouse", "wife", "husband", "girlfriend", "boyfriend"},
	"plan": {"subscription_plan", "tier", "pricing_plan", "subscription_tier", "plan_name", "subscription",
		"account_plan", "billing_plan"},
	"name":           {"full_name", "preferred_name", "nickname", "display_name"},
	"work_schedule":  {"working_hours", "work_hours", "shift_pattern", "work_pattern", "shifts"},
	"availability":   {"out_of_office", "away_status"},
	"location":       {"current_location", "whereabouts"},
	"health":         {"health_status", "illness"},
	"contact_method": {"preferred_contact", "contact_preference", "preferred_channel", "contact_channel"},
	"medication":     {"medications", "meds", "medicine"},
	"exercise":       {"workout", "fitness"},
	"wake_time":      {"wake_up_time", "waking_time"},
	"contract_end":   {"renewal_date", "contract_until", "contract_expiry", "renews_on"},
}

// singleValued are the canonical keys of attributes that hold one value at
// a time: a new value replaces the old whatever category either fact was
// filed under (an employer told as an identity replaces one told as an
// observation). Facts on other keys accumulate unless their category
// supersedes (states, moods) or their durability is short.
var singleValued = map[string]bool{
	"employer": true, "home_city": true, "occupation": true, "timezone": true, "name": true, "pronouns": true,
	"birthday": true, "born_in": true, "native_language": true, "diet": true, "mood": true, "manager": true,
	"partner": true, "plan": true, "contract_end": true, "on_call": true,
}

func init() {
	for canonical, synonyms := range keyConcepts {
		for _, s := range synonyms {
			if prev, ok := keySynonyms[s]; ok {
				panic("classify: key synonym " + s + " names " + prev + " and " + canonical)
			}
			keySynonyms[s] = canonical
		}
	}
}

// CanonicalKey is the canonical key of key's concept: "company",
// "works_at" and "employer" are all "employer", "lives_in" and "city" are
// "home_city". A key outside the vocabulary is returned as it is.
func CanonicalKey(key string) string {
	if c, ok := keySynonyms[key]; ok {
		return c
	}
	return key
}

// IsSingleValued reports whether key, a canonical key, names an attribute
// with one value at a time, whose new value supersedes the old in any
// category.
func IsSingleValued(key string) bool { return singleValued[key] }

// SingleValuedKeys lists the single-valued keys, sorted.
func SingleValuedKeys() []string {
	out := make([]string, 0, len(singleValued))
	for k := range singleValued {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
