package classify

import "testing"

// TestClassifyNotADecision: a decision needs a decider (a group, a named
// person, or the speaker against a named alternative) and a choice made,
// not weighed. Errands, company, personal one-offs, hedges, questions,
// moves and incident actions are none.
func TestClassifyNotADecision(t *testing.T) {
	texts := []string{
		// Personal: errands, company and choices of one's own.
		"I picked up the kids from school",
		"We picked up pizza on the way home",
		"They picked us up at the airport",
		"I went with my mom to the mall",
		"I'm going with my sister to the concert",
		"We went with friends to the beach last weekend",
		"We're going with the kids to the zoo on Saturday",
		"We went with Jake and Amy to the lake",
		"Melanie: Hey! We went with my parents to the lake. It was lovely.",
		"I went with a friend to the game last night",
		"I chose the blue one",
		"I picked this dress for the party",
		"I'm sticking with my old phone for now",
		"I decided to take a nap",
		"I've decided to start running again",
		"Melanie: I decided to take a pottery class, it's so relaxing!",
		"We adopted a rescue dog last month",
		"We moved from Leeds to York last year",
		"I moved from Berlin to Lisbon in 2020",
		"We all agreed it was a great trip",
		"Hey Calvin, been ages! I got picked for a car mod workshop",
		"We were chosen to present at the conference",
		"Go with your gut",
		"Stick with it, you'll get there",
		"We bought wine to go with dinner",
		"We usually go with the cheapest flight",

		// One-offs: a choice for today only.
		"I decided to work from home today",
		"I decided to order pizza tonight",
		"We decided to get takeout tonight",
		"Sam decided to leave early today",
		"Let's go with pizza tonight",
		"Decided to skip the gym this morning",

		// Hedges and questions: a choice weighed, not made.
		"Maybe we'll go with Stripe",
		"Should we go with Stripe",
		"Should we go with Stripe?",
		"Hey team, should we go with Stripe over Adyen",
		"Are we sticking with Postgres",
		"Why did we go with Stripe over Adyen?",
		"Did the team agree on a venue",
		"Has anyone decided on the venue?",
		"I think we should go with Stripe over Adyen",
		"We'll probably go with the cheaper option",
		"We might switch from Jenkins to GitHub Actions",
		"We're considering going with Vercel instead of Netlify",
		"How about we go with the blue theme instead of the green one",
		"I'd go with Postgres over MySQL if I were you",
		"If we go with Stripe we need a new contract",
		"We need to choose between Postgres and MySQL",
		"We have to choose between Postgres and MySQL",
		"We get to pick our own laptops",
		"Agent: I've escalated this. Should we go with a refund?",
		"We need to agree on a naming scheme",
		"We could use Redis instead of Memcached",
		"Let's try using Redis instead of Memcached",
		"We tried using Redis instead of Memcached but it didn't help",
		"We want to go with the annual plan",

		// Support: opinions, agreement with someone, routing.
		"I agree with you",
		"We agree that the docs are a mess",
		"We agreed to disagree",
		"I agreed to help Sam move on Saturday",
		"I was selected for the pilot program",
		"We've switched your account to annual billing",
		"We moved your ticket to the billing team",
		"Would you recommend going with the Pro plan instead of Basic?",

		// Ops: diagnoses, failovers, constraints and incident actions.
		"We've ruled out the network as the cause",
		"Engineers ruled out a DNS issue",
		"We switched traffic from the primary to the replica",
		"We're stuck with Oracle until the contract ends",
		"We decided to restart the pods",
		"The team decided to roll back the release",

		// Coding: habits of one person.
		"From now on I'm going to the gym every morning",
		"I switched from tabs to spaces in the config",
		"Do we use pnpm or npm here?",
	}
	for _, text := range texts {
		if c := Classify(text, testNow); c.Category == CategoryDecision {
			t.Errorf("Classify(%q) = (%s, %s, %q): a decision (%s), want none", text, c.Durability, c.Category, c.Key, c.Reason)
		}
	}
}

// TestClassifyDeciders: the decisions a decider and a choice make, as
// chats word them: a group, a named person, the speaker for the group or
// against a named alternative, a thing chosen over another.
func TestClassifyDeciders(t *testing.T) {
	texts := []string{
		"I'm going with Postgres over MySQL",
		"I decided to use pnpm instead of npm",
		"I've decided we're going with Stripe",
		"I decided that we will use Postgres from now on",
		"Sam decided to move the night shift to Thursdays",
		"Sam and I agreed to use trunk-based development",
		"My wife and I decided to sell the car",
		"Postgres was chosen over MySQL because of JSON support",
		"Going forward, we'll escalate P1s to the incident commander",
		"Team agreed: no deploys after 4pm on Fridays",
		"We agreed that all refunds over $500 need a manager's approval",
		"After the outage we agreed to freeze deploys on Fridays",
		"Support decided to offer a 20% credit for the outage",
		"We've settled on Grafana rather than Datadog for dashboards",
		"We picked Postgres over MySQL at the review",
		"We're sticking with Postgres",
		"We're going to go with Stripe",
		"We're going with Vercel to host the site",
		"Hey team, we're going with Vercel instead of Netlify",
		"Agreed, let's go with Stripe",
		"We switched from Slack to Discord for the community",
		"We migrated from MySQL to Postgres last quarter",
		"We decided to roll out the new pricing in Q3",
		"We've adopted trunk-based development",
		"We decided to ship on Friday",
		"Dev: after some back and forth we went with React over Vue for the dashboard.",
		"Sam: ok team, quick update. We're going with Postgres over MySQL because we need transactions.",
		"Jon: We decided to open the studio in the old bakery space instead of downtown.",
	}
	for _, text := range texts {
		if c := Classify(text, testNow); c.Category != CategoryDecision {
			t.Errorf("Classify(%q) = (%s, %s): %s, want a decision", text, c.Durability, c.Category, c.Reason)
		}
	}
}
