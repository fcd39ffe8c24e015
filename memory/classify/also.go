package classify

// AlsoStated lists the lasting attributes a one-sentence text states
// besides key, the one its fact is filed under: "I'm the finance lead at
// Bluefin Logistics" is filed as an occupation and states an employer too;
// "I moved to Berlin and joined Kettle Labs" a home city and an employer.
// Each comes with the axes its attribute implies (attributes.go). It lists
// nothing for a text that is not a statement of the attribute key names
// (key must be a lasting attribute of the table), for a question, for a
// text of several sentences, or for one told as intended, wished or
// conditional ("I want to move to Berlin and join Kettle Labs"). Only who
// the entity is and what is known of it (identities and observations:
// occupation, employer, home city, time zone, plan...) are listed: a
// condition of the moment, a routine or a preference said in passing
// ("my company is letting me work remotely") is not a fact of its own.
func AlsoStated(text, key string) []Classification {
	a := attributeOf(key)
	if a == nil || a.category == CategoryState {
		return nil
	}
	t := normalize(text)
	if t.norm == "" || !t.oneSentence() || t.intended(true) {
		return nil
	}
	var out []Classification
	for _, st := range t.statements() {
		b := st.attr
		if b == a || b.state || b.category != CategoryIdentity && b.category != CategoryObservation {
			continue
		}
		out = append(out, Classification{Durability: b.durability, Category: b.category, Key: b.key,
			Reason: "also states " + b.key + " " + t.quote(st.a, st.b)})
	}
	return out
}

// attributeOf is the attribute of the table named key, or nil.
func attributeOf(key string) *attribute {
	for _, a := range attributes {
		if a.key == key {
			return a
		}
	}
	return nil
}
