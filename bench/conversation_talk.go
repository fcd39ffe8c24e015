package bench

import "strings"

// The conversation corpus's shared word lists and each domain's small talk.
// Templates name a list in braces ({city}); each occurrence draws anew.

// l splits a list written with '|' between its items.
func l(s string) []string {
	out := strings.Split(s, "|")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// peopleNames are speakers' and third parties' names, with f, m or n for
// the possessive a question uses (her, his, their).
var peopleNames = l(`Caroline:f|Melanie:f|Priya:f|Sofia:f|Hannah:f|Amara:f|Lucia:f|Maya:f|Nora:f|Zoe:f|
Elena:f|Grace:f|Ines:f|Keiko:f|Leila:f|Rosa:f|Tamsin:f|Yara:f|Chloe:f|Freya:f|Beatriz:f|Dalia:f|Esme:f|
Farah:f|Gemma:f|Ingrid:f|Joanna:f|Kavya:f|Lorna:f|Mei:f|Jon:m|Marcus:m|Ravi:m|Tomas:m|Diego:m|Felix:m|
Hugo:m|Kenji:m|Liam:m|Malik:m|Noah:m|Omar:m|Pavel:m|Samir:m|Theo:m|Victor:m|Wes:m|Arjun:m|Ben:m|Caleb:m|
Dmitri:m|Emeka:m|Gabriel:m|Idris:m|Jasper:m|Kofi:m|Luca:m|Mateo:m|Nikhil:m|Oscar:m|Alex:n|Sam:n|Jordan:n|
Riley:n|Quinn:n|Robin:n|Morgan:n|Avery:n|Sasha:n|Jesse:n`)

// agentNames name the agents of the coding and personal domains.
var agentNames = map[string][]string{
	"coder": l("Ada|Orin|Kit"),
	"agent": l("Juno|Sol|Wren"),
}

// roleRefs are how a multi-hop question names someone of a role.
var roleRefs = map[string][]string{
	"friend":    l("the friend|the person"),
	"customer":  l("the customer"),
	"support":   l("the support agent"),
	"developer": l("the developer"),
	"engineer":  l("the engineer|the person"),
	"user":      l("the user|the person"),
}

// vocabulary are the shared lists templates draw from.
var vocabulary = map[string][]string{
	"city": l(`Lisbon|Prague|Montreal|Edinburgh|Seville|Kyoto|Savannah|Bruges|Vienna|Porto|Denver|Austin|Leeds|
Glasgow|Lyon|Osaka|Halifax|Perth|Nairobi|Bristol|Tucson|Vancouver|Cork|Turin|Portland|Raleigh|Chicago|Boston|
Seattle|Madrid|Berlin|Dublin|Toronto|Oslo|Helsinki|Krakow|Bologna|Marseille|Hamburg|Rotterdam`),
	"street": l(`Elm Street|Harbor Road|Mill Lane|Queen Street|Cedar Avenue|Station Road|Park Row|Maple Drive|
Bridge Street|Canal Walk|Orchard Way|Church Lane|Market Street|Hill Road|Union Square`),
	"cuisine": l(`Thai|Ethiopian|Lebanese|Peruvian|Korean|Georgian|Sichuan|Vietnamese|Turkish|Oaxacan|Malaysian|
Basque|Persian|Sri Lankan|Nepalese`),
	"food": l(`tacos|dumplings|pizza|ramen|curry|falafel|sushi|burgers|pho|noodles|a burrito|fried chicken|
waffles|pancakes|a poke bowl|banh mi|empanadas|kebabs|a salad|soup`),
	"weather": l(`gray and rainy|weirdly warm|freezing|so humid|windy|perfect|foggy every morning|snowy|
stormy|scorching hot`),
	"weekday": l("Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"),
	"chore": l(`laundry|taxes|the garage|meal prep|cleaning out the fridge|the garden|paperwork|the dishes|
unpacking|emails|grocery runs|the gutters`),
	"adj": l(`exhausting|chaotic|pretty chill|a blur|so long|weirdly productive|a lot|quiet|hectic|surprisingly fun|
rough|busy but good`),
	"feeling": l(`tired|excited|nervous|relieved|grateful|stressed|happy|restless|proud|overwhelmed|calm|hopeful`),
	"petname": l(`Biscuit|Pepper|Mochi|Juniper|Waffles|Ziggy|Luna|Clementine|Otis|Pickle|Miso|Rocket|Hazel|
Bean|Tofu|Nacho`),
	"clock": l("8:15|9:30|10:45|11:00|1:30|2:15|3:40|4:00|5:20|6:10"),
	"sport": l("soccer|basketball|volleyball|badminton|hockey|ultimate frisbee|squash|netball"),
	"show":  l("that baking competition|the detective series|a documentary about octopuses|the new sci-fi show|a cooking show|reruns of an old sitcom"),
	"band":  l("an old jazz record|some 90s hip hop|a lot of folk music|my gym playlist|the same three albums|a new indie band"),
	"meal":  l("coffee|brunch|lunch|dinner|drinks|breakfast|tacos|a quick bite"),
	"thing": l(`the new place|work|the renovation|your week|the job hunt|training|the garden|your sister|the move|
the new team|your back|school`),
	"appliance": l("dishwasher|washing machine|oven|fridge|boiler|car|laptop|phone|toaster|vacuum"),
	"hobby":     l("bouldering|pottery|gardening|baking bread|board games|birdwatching|chess|sketching|kayaking|yoga"),
	"laptop":    l("MacBook|ThinkPad|Chromebook|Surface laptop|Dell XPS|Windows desktop"),
	"orderno":   l("BD-40211|BD-40388|BD-41057|BD-41622|BD-42019|BD-42573|BD-43108|BD-43390"),
	"module": l(`the scheduler|the billing code|the auth layer|the search service|the exporter|the notifier|
the parser|the cache|the importer|the webhook handler`),
	"service": l(`checkout-api|payments-gateway|search-indexer|auth-service|notification-worker|image-resizer|
inventory-sync|ledger-db|session-cache|report-builder`),
	"dashboard": l(`the latency dashboard|the error budget panel|the Grafana board|the queue graphs|the host metrics|
the status page`),
	"minutes": l("five|ten|fifteen|twenty|thirty|forty"),
	"errand":  l("the dry cleaning|a pharmacy pickup|the post office|the bank|a return at the mall|the car wash"),
}

// talk is what a speaker of some role says besides the facts.
type talk struct {
	greetings, greetReplies, closings []string
	prompts                           []string // before a fact: what asks for news
	leads, followUps                  []string // around a fact's sentence
	reactions, acks, news             []string
	exchanges                         [][2]string // a question and its answer
}

var friendTalk = &talk{
	greetings: l(`Hey {other}! How's it going?|Hiii {other} :)|Morning {other}! Long time no talk.|
Hey you! It's been forever.|{other}!! How have you been?|Hey, got a minute to catch up?|Yo {other}, you around?|
Happy {weekday}! How's life?|Hey {other}, finally a quiet evening, how are you?|Hi hi. Sorry I went quiet for a bit.`),
	greetReplies: l(`Hey! Good, good. Busy week though.|Hi {other}! I'm okay, just {feeling} honestly.|
Heyyy, so good to hear from you!|Doing alright! Work has been {adj}.|Oh hey! Perfect timing, I was just thinking about you.|
I'm good! Just got home.|Hey hey. Surviving, mostly.|All good here, what about you?|Hi! Yes, it's been way too long.`),
	closings: l(`Anyway, I gotta run. Talk soon!|Okay, dinner's ready, chat later!|Love you, catch up soon.|
Gotta go, but let's do {meal} soon?|Night {other}!|Alright, I'm off to bed. Bye!|Talk to you this weekend?|
Ok bye bye, say hi to everyone for me.|Same time next week?|Have a good one!`),
	prompts: l(`So what's new with you?|Okay your turn, any news?|What have you been up to?|How was your weekend?|
Tell me something good.|Anything exciting happening?|What's the latest?|How's everything going on your end?`),
	leads: l(`Oh, guess what!|Okay so,|Not much honestly, but|Ha, funny you ask.|Small update:|So,|
You won't believe this but|Oh! I forgot to tell you,|Well,|Honestly?|Big week over here.`),
	followUps: l(`I'm so happy about it.|Still can't quite believe it.|It was a lot, but worth it.|
Kind of {feeling} about it, not gonna lie.|Anyway, that's my news.|I'll send you pictures later.|
{x} thinks I'm crazy, but whatever.|Totally made my week.|Highly recommend, by the way.|Life is weird sometimes.`),
	reactions: l(`No way, that's amazing!|Oh nice, good for you!|Wow, I'm jealous.|Haha love that.|
That sounds like a lot, hope it went okay.|Ooh, you have to show me pictures.|Wait, seriously? Tell me everything.|
Aww, that's so sweet.|Yesss, finally!|That's huge, congrats!|Oof. But also kind of exciting?|Ha, classic you.`),
	acks: l(`Lol yes.|Right?!|Same here.|Totally agree.|Oh no!|Hmm, maybe.|For sure.|Ha, true.|
Honestly same.|Omg.|Yeah yeah.|I know, right.|Fair enough.|Haha stop.|100%.`),
	news: l(`The weather here has been {weather} all week.|I've been so swamped with {chore} lately.|
We tried that {cuisine} place on {street} but it was just okay.|My {appliance} broke again, so that's fun.|
I've gotten really into {hobby}, it's so relaxing.|Traffic on {street} was a nightmare this morning.|
I've been watching {show} every night, it's embarrassing.|{x} says hi, by the way.|
I've been listening to {band} on repeat.|My neighbor's dog barked for like three hours straight last night.|
I ate {food} three days in a row and I regret nothing.|I need a vacation from my vacation.|
{x} is thinking about moving to {city}, can you imagine?|Work has been {adj}, I need a break.|
I finally deep-cleaned the bathroom. Adulting!|Someone at the office brought {food} and I ate way too much.|
I keep meaning to call {x} back and forgetting.|The power went out for an hour yesterday, very dramatic.|
I'm trying to drink more water. Day three, going okay.|I think I'm getting a cold, ugh.`),
	exchanges: [][2]string{
		{"How's {thing}?", "Honestly {adj}, but getting there."},
		{"Did you ever hear back from {x}?", "Yeah, {x} texted me, all good."},
		{"We should grab {meal} soon!", "Yes please, I'm free most {weekday}s."},
		{"Are you still doing {hobby}?", "Trying to! Once a week if I'm lucky."},
		{"What are you up to this weekend?", "Nothing much, probably {chore} and a long nap."},
		{"Have you been to {city}?", "Never, but it's on the list."},
		{"How's the weather there?", "{weather}, as usual."},
		{"Did you watch anything good lately?", "Just {show}, nothing special."},
		{"Are you sleeping better?", "A little. Still up way too late."},
		{"How's your family doing?", "Everyone's fine, my mom says hi."},
		{"Do you want to do a call sometime this week?", "Yes! {weekday} evening works for me."},
		{"Wait, are you still on {street}?", "Yep, same old place."},
	},
}

var supportTalk = map[string]*talk{
	"customer": {
		greetings: l(`Hi, it's me again.|Hello {other}, following up on my earlier message.|Hi there, hope you can help.|
Good morning, I have a question about my account.|Hey {other}, quick one for you.|Hi, is this the right place for order issues?`),
		greetReplies: l(`Hi {other}, thanks for getting back to me.|Hello! Yes, thanks.|Hi, thanks for the quick reply.|
Great, thank you.|Morning! Yes, that's me.`),
		closings: l(`Thanks, that's all for now.|Great, appreciate your help!|Ok, I'll wait to hear from you.|
Thanks {other}, have a good day.|Perfect, thank you so much.|Alright, bye for now.`),
		prompts: l(`Is there anything else you need from me?|What happens next?|Anything else I should know?`),
		leads:   l(`Just to add,|Also,|Following up on this:|Quick update:|One more thing:|Hi again,|For the record,`),
		followUps: l(`Hope that helps.|Let me know if you need anything else from me.|Sorry for the long message.|
It's been a bit of a headache, honestly.|Not urgent, but I wanted to flag it.|My team is asking me about it daily.`),
		reactions: l(`Great, thank you!|Perfect, appreciate it.|Ok, thanks for sorting that out.|That's a relief, thanks.|
Good to know.|Thanks, that's helpful.|Ok, fingers crossed.`),
		acks: l(`Ok.|Thanks.|Got it.|Sure.|Understood.|Ok, will do.|Sounds good.|Alright.`),
		news: l(`Sorry for the slow reply, it's been a crazy week at the office.|The delivery driver left it at the wrong door again.|
My colleague {x} might email you as well, just so you know.|We're moving some people around on {street}, so deliveries may vary.|
I tried the troubleshooting guide but it didn't help.|The tracking page hasn't updated in two days.|
Our office manager {x} is on leave this week.|I'm out on {weekday} if you need to reach me.`),
		exchanges: [][2]string{
			{"Any update on my ticket?", "Still waiting on the warehouse, I'll chase them today."},
			{"Can I change the delivery address?", "Yes, as long as it hasn't shipped yet."},
			{"Do you have an estimate for the delivery?", "The carrier says {weekday}, but it may slip a day."},
			{"Is there a restocking fee?", "Not for damaged items, no."},
			{"Can you send me the invoice again?", "Sure, I've just resent it to your email."},
			{"How long does the refund usually take?", "Usually three to five business days."},
			{"Should I keep the original packaging?", "Yes please, until the return is processed."},
			{"Can someone call me instead?", "I can arrange a call back, what number is best?"},
		},
	},
	"support": {
		greetings: l(`Hi {other}, thanks for contacting Brightdesk support, this is {me}. How can I help?|
Hello {other}, welcome back! What can I do for you today?|Good morning {other}, I'm picking up your ticket today.|
Hi {other}, following up on your case.|Hello again {other}, I have an update for you.`),
		greetReplies: l(`Hi {other}, I've got your message, one moment.|Hello {other}, let me pull up your account.|
Thanks {other}, I'm looking into it now.|Hi! Happy to help with that.`),
		closings: l(`Is there anything else I can help with today?|Thanks for your patience, {other}. Have a great day!|
I'll keep the ticket open until it's resolved.|Feel free to reply here anytime.|Take care, {other}!`),
		prompts: l(`Could you tell me a bit more about the issue?|What can I help you with today?|
Can you confirm the details for me?|Is there anything else going on with the order?`),
		leads: l(`Okay,|Thanks for waiting.|Good news:|Update from my side:|I've checked with the team, and|Alright,`),
		followUps: l(`You'll get an email confirmation shortly.|I've added a note to your account.|
Sorry again for the trouble.|Let me know if anything looks off.|That should take care of it.`),
		reactions: l(`Thanks for letting me know.|Got it, I've noted that on your account.|Understood, let me look into it.|
I'm sorry to hear that.|That's helpful, thank you.|Thanks, I've passed that on to the warehouse.`),
		acks: l(`One moment please.|Let me check that for you.|Sure.|Of course.|Noted.|Thanks for confirming.`),
		news: l(`Our warehouse is running a little behind this week.|The carrier had delays in your area yesterday.|
I've escalated this to my team lead, {x}.|We're updating our returns portal, so emails may look different.|
Just a heads up, our phone line is closed on {weekday}.`),
		exchanges: [][2]string{
			{"Could you send me a photo of the damage?", "Sure, sending it now."},
			{"Can you confirm your shipping address?", "Yes, it's still the one on {street}."},
			{"Would you prefer a replacement or a refund?", "A replacement, if possible."},
			{"Is the email on file still the best way to reach you?", "Yes, that's fine."},
			{"Did the tracking link work for you?", "It did, thanks."},
			{"Do you still have the original box?", "I think so, let me check the storage room."},
		},
	},
}

var codingTalk = map[string]*talk{
	"developer": {
		greetings: l(`Morning {other}. Picking up where we left off yesterday.|Hey {other}, got a minute?|
Ok, back at it.|Hi {other}, new day, new bugs.|Let's pick this up again.|Hey, can you help me with something?`),
		greetReplies: l(`Morning! Ready when you are.|Hey, sure thing.|Yep, I'm here.|Hi! Let's do it.`),
		closings: l(`Ok, calling it a day. Thanks!|Let's continue tomorrow.|Pushing what I have, talk later.|
Great work today, thanks.|I'm off, the rest can wait until Monday.`),
		prompts: l(`What did you find?|Anything interesting in the logs?|Where are we with this?|What's the status?`),
		leads:   l(`Okay,|So,|Heads up:|FYI,|Found something:|Quick note:|Alright,|Context:`),
		followUps: l(`Not sure why nobody caught it earlier.|Let's keep an eye on it.|I'll mention it at standup.|
It's been bugging me all week.|We should write that down somewhere.`),
		reactions: l(`Nice catch.|Makes sense.|Ok, good to know.|Good call.|Ugh, of course.|Perfect, thanks.|
Huh, interesting.|Great, that's a relief.`),
		acks: l(`Ok.|Sounds good.|Yep.|Agreed.|Cool.|Sure.|Right.|Let's do that.`),
		news: l(`The CI queue is super slow today.|I have meetings until noon, so I'll be slow to reply.|
{x} wants a demo on {weekday}.|My laptop fan sounds like a jet engine.|Standup ran long again.|
The staging database got wiped overnight, so don't trust anything there.|I'm still getting used to the new monorepo layout.|
Coffee first, then the migration.`),
		exchanges: [][2]string{
			{"Can you take a look at this stack trace?", "Sure, paste it here."},
			{"Can you write a quick test for that?", "On it, give me a minute."},
			{"Does that break the public API?", "No, it's all internal."},
			{"Should we squash these commits?", "Yes, into one per change."},
			{"Can you check if {module} has the same problem?", "Checked, it doesn't."},
			{"How long does the full suite take now?", "About {minutes} minutes on CI."},
		},
	},
	"coder": {
		greetings: l(`Good morning {other}. I read through yesterday's notes.|Hi {other}, I'm ready.|
Hello {other}. Where should we start today?`),
		greetReplies: l(`Hi {other}! I've got the branch checked out.|Morning. The tests are green on main.|
Hello! I'm here and ready.|Hi {other}. I kept notes from last time.`),
		closings: l(`I've summarized today's changes in the PR description.|Good session. I'll keep the notes for next time.|
Talk tomorrow, {other}.`),
		prompts: l(`What should I look at next?|Do you want me to keep going?|Anything else on your list?|
Should I check something else?`),
		leads: l(`Done.|Okay.|I looked into it.|Here's what I found:|Update:|I ran it locally and`),
		followUps: l(`All the tests pass locally.|I left a comment in the code explaining why.|
Let me know if you want a different approach.|The diff is small.|I also fixed a typo nearby.`),
		reactions: l(`Understood.|Got it, I'll keep that in mind.|Noted.|Thanks for the context.|
That explains the failures.|Ok, I'll work with that.`),
		acks: l(`Okay.|Sure.|Will do.|Running it now.|Done.|Checking.`),
		news: l(`The linter flagged two unused imports, I removed them.|The build cache was stale, so I cleared it.|
I noticed {module} logs a warning on startup.|There's a deprecation notice in the test output.|
Three tests are skipped on CI, I'm not sure why.`),
		exchanges: [][2]string{
			{"Do you want me to open a draft PR?", "Yes please."},
			{"Should I rebase on main first?", "Yeah, go ahead."},
			{"Do you want the change behind a flag?", "No, just ship it."},
			{"Should I update the docs too?", "Please, the README at least."},
		},
	},
}

var opsTalk = &talk{
	greetings: l(`Morning all. Anything overnight?|Hey team, I'm on for today.|Heads up, I'm starting the shift now.|
Hi all, catching up on the channel.|Back online, what did I miss?|Morning. Coffee in hand, reading the backlog.`),
	greetReplies: l(`Morning {other}. Quiet night mostly.|Hey {other}, welcome back.|Hi! Not much, a couple of flaky alerts.|
Morning. All green right now.`),
	closings: l(`Handing off now, ping me if it flares up.|I'm out, have a quiet night everyone.|
Closing the bridge call, thanks all.|Logging off, notes are in the doc.|Signing off, good work today.`),
	prompts: l(`Any news?|Status?|What are we seeing?|Anyone have eyes on it?|Where are we?|Update?`),
	leads:   l(`Update:|FYI|ok,|Heads up,|Confirmed:|Looking now...|Found something.|Quick note:|So,`),
	followUps: l(`Will post more in a few.|Watching the graphs.|Let's not touch anything else for now.|
Customer support has been told.|I'll add it to the timeline.|Keep an eye on {dashboard}.`),
	reactions: l(`ack|thanks|+1|nice|ok, watching the graphs|good find|copy that|ugh, ok|great, thanks|
on it|makes sense|appreciated`),
	acks: l(`ack|ok|+1|yep|looking|on it|same|noted|thanks|will do|sure`),
	news: l(`{dashboard} looks normal to me.|Deploy freeze is still on until {weekday}.|
I'm seeing some noise on {service} but it's probably nothing.|Someone left a debug flag on in staging again.|
The runbook for {service} is out of date, I'll fix it later.|My pager app keeps crashing, fun times.|
Status page is updated.|{x} is on vacation this week, so I'm covering.|The bridge call is open if anyone wants to join.|
Reminder: game day is on {weekday}.`),
	exchanges: [][2]string{
		{"Is anyone looking at {service}?", "Yes, I have it."},
		{"Do we need to update the status page?", "Already done."},
		{"Should we page {x}?", "Not yet, let's give it {minutes} minutes."},
		{"Are the canaries healthy?", "All green."},
		{"Is this customer-facing?", "A little, some checkout requests are slow."},
		{"Who's incident commander today?", "I can take it."},
		{"Did the backup job finish?", "Yep, last night."},
	},
}

var agentTalk = map[string]*talk{
	"user": {
		greetings: l(`Morning {other}!|Hey {other}, quick favor.|Hi {other}, can you help me plan the week?|
Hey, are you there?|Good evening {other}.|Ok {other}, a few things today.`),
		greetReplies: l(`Morning! Yes, go ahead.|Hi! Sure.|Hey. Perfect.|Hi {other}, thanks.`),
		closings:     l(`Thanks, that's all for now!|Perfect, thank you.|Great, talk tomorrow.|That's everything, thanks {other}.`),
		prompts:      l(`Anything I should know about today?|What's on my calendar?|Did that go through?`),
		leads:        l(`Oh, and|Also,|Quick one:|By the way,|Before I forget,|Okay,|Hmm, also`),
		followUps: l(`Thanks in advance.|No rush on that.|Keep it in mind for the future.|You know how I am.|
Just so you have it.`),
		reactions: l(`Thanks!|Perfect.|Great, thank you.|Amazing.|Oh good.|That's a relief.|Nice.`),
		acks:      l(`Ok.|Thanks.|Sure.|Yep.|Sounds good.|Perfect.|Cool.`),
		news: l(`I'm so tired today.|Ugh, it's raining again.|I have {errand} on the way home.|
My {appliance} is making a weird noise.|Work is {adj} this week.|I need to get better at going to bed early.`),
		exchanges: [][2]string{
			{"What's the weather tomorrow?", "Looks {weather}, bring a jacket."},
			{"How long to get to the office right now?", "About {minutes} minutes with traffic."},
			{"Do I have anything {weekday} evening?", "Nothing booked."},
			{"Can you move my {clock} call?", "Done, it's an hour later now."},
			{"Remind me what I have tomorrow.", "Two meetings and {errand}."},
		},
	},
	"agent": {
		greetings: l(`Good morning {other}. Here's your day at a glance.|Hi {other}, how can I help?|
Hello {other}. You have two things on the calendar today.|Good evening {other}.`),
		greetReplies: l(`Hi {other}, I'm here.|Hello! Ready when you are.|Good morning {other}.`),
		closings:     l(`Have a good day, {other}.|I'll check in tomorrow morning.|Anything else, just ask.|Good night, {other}.`),
		prompts: l(`Is there anything you'd like me to note?|Anything else for today?|
Would you like me to book anything?`),
		leads:     l(`Done.|All set.|Okay.|Confirmed.|Sure.|Got it.`),
		followUps: l(`I've added it to your calendar.|You'll get a notification beforehand.|Let me know if you want to change it.`),
		reactions: l(`Noted!|Got it, I've saved that.|Done.|All set.|I'll remember that.|Understood.`),
		acks:      l(`Okay.|Sure.|Of course.|Noted.|Will do.|Done.`),
		news: l(`Your package is out for delivery.|There's a traffic jam on {street}, leave ten minutes early.|
You have three unread messages from {x}.|Your phone bill is due on {weekday}.|It will be {weather} this afternoon.`),
		exchanges: [][2]string{
			{"Would you like me to reply to {x}?", "Yes, say I'll call later."},
			{"Should I order the usual groceries?", "Yes please."},
			{"Do you want the morning briefing at {clock}?", "Make it a bit later."},
			{"Shall I decline the {weekday} invite?", "Yes, I can't make it."},
		},
	},
}
