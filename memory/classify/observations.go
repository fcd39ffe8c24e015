package classify

import "regexp"

var observationRe = regexp.MustCompile(`\b(?:(lives in|lives at|live in|live at|living in|based in|based out of|moved to|relocated to|resides in|reside in)|(works at|works for|work at|work for|working at|working for|employed at|employed by|job at)|(uses|use|is using|are using|am using|'m using)|(speaks|speak)|(time ?zone)|(e-?mail(?: address)? is)|(phone(?: number)? is)|(owns))\b`)

var observationKeys = [...]string{"lives_in", "works_at", "uses", "speaks", "timezone", "email", "phone", "owns"}

var (
	// errandRe: an errand the speaker got done, told in the past with the
	// speaker left out or named ("Paid the water bill", "I just booked the
	// flights", "Done, paid it just now"), at the start of a clause. A
	// purchase is not one: what was bought is owned.
	errandRe = regexp.MustCompile(`(?:^|[,;:] )(?:(?:i|we|i've|we've|i have|we have|just|finally|already|also|and) )*(?:paid|ordered|booked|sent|posted|mailed|returned|cancell?ed|submitted|filed|signed|collected|topped up|transferred|dropped off|lost|broke|forgot)\b`)
	// mishapRe: something that happened to the speaker's things ("They
	// lost my bag on the Lisbon flight").
	mishapRe = regexp.MustCompile(`\b(?:lost|broke|damaged|misplaced|stole|delayed|cancell?ed|overbooked|double-booked) (?:my|our)\b`)
	// referenceRe: the reference of a case under way ("The claim reference
	// is LX-44812", "booking ref: K7Q2"), kept while the case is.
	referenceRe = regexp.MustCompile(`\b(?:claim|booking|confirmation|tracking|case|ticket|order|reservation|return|refund|rma|complaint|parcel|shipment) (?:reference|ref|number|no|code|id)(?: is|:| =) [a-z0-9#]`)
	// lastingObjectRe: what an errand or a mishap may name that is no
	// errand: a job, a home, a person.
	lastingObjectRe = regexp.MustCompile(`\b(?:job|position|role|house|home|flat|apartment|mind|temper|mother|father|mum|mom|dad|wife|husband|partner|son|daughter|brother|sister|friend|dog|cat|weight|virginity|touch|patience|track|count|interest|sleep|balance|faith|hope|nerve)\b`)
)

// observation is the default: a long_term observation, keyed by what it is
// about when a phrase names it. A one-off errand or mishap of the speaker's
// ("Paid the water bill", "They lost my bag on the flight") and the
// reference of a case under way ("The claim reference is LX-44812") are
// short_term: they matter while what they close or open is current.
func (t *text) observation() Classification {
	c := Classification{Durability: LongTerm, Category: CategoryObservation, Reason: noRule}
	if m := t.findSub(fObservation, observationRe); m != nil {
		for g := range observationKeys {
			if m[2+2*g] >= 0 {
				c.Key = observationKeys[g]
				c.Reason = "observation " + t.quote(m[0], m[1])
				break
			}
		}
	}
	if c.Key != "" {
		return c
	}
	if t.has(fPast) && !lastingObjectRe.MatchString(t.norm) && !t.has(fBounded) {
		if m := errandRe.FindStringIndex(t.norm); m != nil {
			a := m[0]
			for a < m[1] && !isWordByte(t.norm[a]) {
				a++
			}
			c.Durability, c.Reason = ShortTerm, "one-off errand "+t.quote(a, m[1])
			return c
		}
		if m := mishapRe.FindStringIndex(t.norm); m != nil {
			c.Durability, c.Reason = ShortTerm, "one-off mishap "+t.quote(m[0], m[1])
			return c
		}
	}
	if t.has(fDigit) {
		if m := referenceRe.FindStringIndex(t.norm); m != nil {
			c.Durability, c.Reason = ShortTerm, "case reference "+t.quote(m[0], m[1]-1)
		}
	}
	return c
}
