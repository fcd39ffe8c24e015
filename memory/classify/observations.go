package classify

import "regexp"

var observationRe = regexp.MustCompile(`\b(?:(lives in|lives at|live in|live at|living in|based in|based out of|moved to|relocated to|resides in|reside in)|(works at|works for|work at|work for|working at|working for|employed at|employed by|job at)|(uses|use|is using|are using|am using|'m using)|(speaks|speak)|(time ?zone)|(e-?mail(?: address)? is)|(phone(?: number)? is)|(owns))\b`)

var observationKeys = [...]string{"lives_in", "works_at", "uses", "speaks", "timezone", "email", "phone", "owns"}

func (t *text) observation() Classification {
	c := Classification{Durability: LongTerm, Category: CategoryObservation, Reason: "no rule matched: a general observation"}
	if m := t.findSub(fObservation, observationRe); m != nil {
		for g := range observationKeys {
			if m[2+2*g] >= 0 {
				c.Key = observationKeys[g]
				c.Reason = "observation " + t.quote(m[0], m[1])
				break
			}
		}
	}
	return c
}
