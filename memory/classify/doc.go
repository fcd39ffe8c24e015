// Package classify is the offline, rule-based classifier: it puts a text on
// both axes of a fact (durability and category) without any network,
// deterministically, and guesses the fact's key. Classify is the entry point.
//
// The rules run in a fixed order and the first that matches decides. Each
// rule's place in the order is a judgement about which mistake costs least:
//
//  1. empty text: nothing to classify, so the defaults (long_term observation).
//  2. decision (permanent): "decided", "settled on", "the decision is", a
//     group that "agreed", or a group's choice with a rejected alternative
//     ("we use pnpm, not npm", "going with X instead of Y"). It comes first
//     because a decision lost to another category gets reopened: "we decided
//     to meet every Monday" is a decision, not a routine. Negated or open
//     ("we haven't decided", "to be decided") it is not a decision. A
//     decision needs a decider and a choice made: a bare "I" decides only
//     beside a rejected alternative or a group; hedged or asked choices
//     ("maybe we'll go with", "should we go with"), company rather than a
//     choice ("went with my mom"), a move without a rejected alternative,
//     passives such as "got picked", and one-offs for today are not
//     decisions.
//  3. mood (ephemeral): before everything else because moods must never
//     harden; a feeling taken for a trait breaks the product's promise, while
//     a trait taken for a mood only fades early.
//  4. identity (permanent): biography and lasting traits (born in, allergic
//     to, my name is, native language, is an introvert, is a software
//     engineer). A role held "this week" or "until March" is a state.
//  5. obligation (short_term): a duty (must, needs to, has to, promised,
//     remind me to, deadline, due) or an appointment or plan on a named date
//     ("present at the conference on May 15", "report by Jan 5"). A duty that
//     recurs and names no date ("must take medication daily") is a routine:
//     it has no deadline to decay after and should not fade. A lifted duty
//     ("doesn't need to") is not an obligation. Obligations come before
//     states so that "dentist appointment today" keeps its deadline.
//     A plan told in the present ("the plumber comes on Thursday", "I start
//     on April 1", "I'm moving to Zurich at the end of March") is an
//     appointment too, and so is an event (interview, flight, migration...)
//     dated by a clock time alone ("the interview is at 10am"). Someone out,
//     off, away or late on a day to come ("I'm off tomorrow") is a state of
//     availability, not an appointment; "on call" is a roster, not a call.
//  6. state: a templated status line of a job, a deploy, a backup or a
//     ticket, with a thing for subject named by a job noun or an id
//     ("Reindex job 412 finished in 3m10s", "Deploy 5521 of checkout to
//     production succeeded", "Ticket OPS-881 created", "queue drained",
//     "Rolled back"), a test runner's verdict or a health check's list, is
//     the latest status of that thing: an ephemeral state, though told in
//     the past (events.go). A person as subject ("I finished the report") or
//     a past time ("failed yesterday") makes it a record.
//     Otherwise a condition of the moment (right now, currently, at the moment,
//     still syncing, ETA, rolling out, a metric reading, progress) is
//     ephemeral; one with a bound (until Friday, this week, for the next two
//     weeks, on vacation, working on) is short_term; "today"/"tonight" make it
//     ephemeral even when bounded. A metric or a service that recovered,
//     resolved or is back to normal ("replication lag recovered", "p99 back
//     under 120 ms", "the incident is resolved") is an ephemeral state too,
//     on the key of the state it resolves.
//  7. preference (long_term): prefers, likes, loves, enjoys, favourite, would
//     rather, always uses, a fan of, dislikes, hates (see below).
//  8. routine (long_term): every/each/daily/weekly/on Mondays/usually/always,
//     a work schedule ("works nights", "works from home"), or a clock time
//     with no date ("takes medication at 9am").
//  9. everything else: a long_term observation.
//
// Mood or preference. Feeling words (stressed, tired, frustrated, annoyed,
// excited...) and "feeling down/better" are moods in any person: "Priya
// sounded frustrated". Complaints of the moment are moods too: first-person
// venting ("I hate mornings", "I can't stand this", "ugh", "sick of") and
// hating a time of day or the moment in any person ("hates Mondays", "hates
// it when"). Stated tastes are preferences: "prefers dark mode", "likes",
// "loves", "I love dark mode", and third-person "hates" of anything else
// ("hates being put on hold"). A feeling described as a habit or a trait
// ("usually grumpy in the mornings", "an anxious person", "gets anxious
// before talks") is not a mood and is left to the later rules; "happy to
// help" is willingness, not a mood. A thing used up is no feeling: "queue
// drained", "retries exhausted". Venting about the moment ("this is
// ridiculous") and a team's morale ("morale's low") are moods.
//
// A sentence that opens with the speaker's feeling as its main clause and
// goes on to explain it ("I'm exhausted, it's been a long day", "I'm in a
// great mood, the sun is out!") is a mood though not a bare statement: it
// must not harden. What follows explains the feeling, so it keeps the key
// mood; a text of several sentences is never such a mood.
//
// Conversation. A lead-in that says nothing ("Heads up,", "Sam here,", "Not
// our fault, but") is set aside and the rest classified. Faults and
// problems reported by a user or a system ("I can't export invoices", "the
// route planner keeps crashing", "open for 47 hours") are states, and so
// are roles held for now ("taking over as IC", "Marta is my backup"). A
// commitment told in the future ("Sam will post updates every 30 minutes")
// and a plan with an occasion ("meeting Giulia for lunch") are
// obligations. The speaker's own choice is a decision only when it names
// what was chosen and gives a reason that still holds ("I picked Go for the
// CLI because the team knows it"); a past "went with" needs an alternative,
// a lasting reason or a group's work ("went with your competitor" is a
// customer's record, not a decision). Standing rules ("never commit the
// .env file") and what a named person wants are preferences; one-off
// errands ("Paid the water bill") are short-term observations. Not-facts
// (notfacts.go) are questions, acknowledgements, reactions, requests,
// instructions to the assistant, hypotheticals, sarcasm, actions announced
// in the moment ("I'll roll back the deploy") and negations, which deny a
// value and retire it instead of stating one.
//
// Text that reads as past ("was down yesterday", "shipped on May 15") is not a
// state and not a dated obligation: it is a record of what happened.
//
// Once the rules have decided the axes, the key is named after what the fact
// is about: home_city, employer, occupation, replication_lag,
// p99_latency, drink, deploy_day..., the same for the paraphrases of one
// fact, so that supersession and merging find their pairs.
//
// Bare statements. Only a bare statement, one clause of at most 12 words
// ("I'm so tired today", "replication lag is 4 s"), is a mood or a state
// (but for a sentence that opens with a feeling, above),
// and only a bare statement carries a key that supersedes: a chat turn that
// says several things and mentions a feeling in passing is what else it
// states, often an observation, and keeps a key only where facts
// accumulate (an observation's) or where the key is its own (a
// decision's), or where its lead clause states a single-valued attribute
// (attributes.go). Every mood's key is mood, but for one that also states
// an occasion ahead or an event after an interjection. Generic keys (status, routine, likes, obligation...:
// GenericKeys) name a category rather than an attribute; a fact on one
// never supersedes and is never superseded (keys.go).
//
// Matching works on a normalised copy of the text: lowercase, curly quotes
// and apostrophes made straight, dashes turned into commas, whitespace
// collapsed. Words match whole: "mood" does not match inside "moody" ("moody"
// is a mood word of its own) and "decided" not inside "undecided". Only the
// first 16 KiB of a text are read, and each rule examines a bounded number of
// candidate matches, so the cost stays linear in the text.
package classify
