#!/usr/bin/env python3
"""Build the Pulse demo memory: resources/demo/demo_memory.json (format pulse-corpus/1).

The person described here, Nadia Volkova, is fictional. Everything in this file was
written for Pulse; no text is taken from anywhere else.

The content is kept as plain Python data so it stays readable and reviewable. Events
carry a symbolic id; the builder sorts them by timestamp, assigns the keys e001, e002, ...
in that order and resolves parent ids to keys, so a parent is always an earlier event.
The output is deterministic: running the script twice gives the same bytes.

Usage:  python3 resources/demo/build_demo.py [--check]
        --check  rebuild in memory and fail if the JSON on disk differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

NOW = "2026-11-01T12:00:00Z"
OUT = Path(__file__).resolve().parent / "demo_memory.json"

EMOTIONS = (
    "joy",
    "sadness",
    "anger",
    "fear",
    "trust",
    "disgust",
    "anticipation",
    "surprise",
    "shame",
    "guilt",
)

# The data below is laid out by hand for reading; keep the formatter off it.
# fmt: off
# entities that mark a topic boundary (do_not_probe)
BOUNDARIES = {"n_boundary_papa"}

# --------------------------------------------------------------------------- entities
# (key, name, kind, domain, aliases)
ENTITIES = [
    # real: people
    ("p_self", "Nadia Volkova", "person", "real",
     ["Nadia", "Nadya", "Надя", "Надежда Волкова"]),
    ("p_mother", "Irina Volkova", "person", "real", ["Mama", "Мама", "Ирина", "my mother"]),
    ("p_father", "Pavel Volkov", "person", "real", ["Papa", "Папа", "Павел", "my father", "Dad"]),
    ("p_grandma", "Vera Sokolova", "person", "real",
     ["Baba Vera", "Бабушка Вера", "бабушка", "Grandma"]),
    ("p_sister", "Katya Lind", "person", "real",
     ["Katya", "Kate", "Катя", "Ekaterina Volkova", "my sister"]),
    ("p_erik", "Erik Lind", "person", "real", ["Erik"]),
    ("p_zoya", "Zoya Lind", "person", "real", ["Zoya", "Зоя", "my niece"]),
    ("p_tom", "Tom Reyes", "person", "real", ["Tom", "my ex-husband"]),
    ("p_sam", "Sam Adeyemi", "person", "real", ["Sam", "my partner"]),
    ("p_dana", "Dana Whitfield", "person", "real", ["Dana", "Dee"]),
    ("p_therapist", "Dr. Helen Marsh", "person", "real", ["Helen", "Dr. Marsh", "my therapist"]),
    ("p_greg", "Greg Hollis", "person", "real", ["Greg", "my old manager"]),
    ("p_priya", "Priya Nair", "person", "real", ["Priya"]),
    ("p_jonah", "Jonah Park", "person", "real", ["Jonah"]),
    ("p_leonie", "Leonie Hart", "person", "real", ["Leonie", "my agent"]),
    # real: animals, places, organisations, skills, concepts
    ("n_biscuit", "Biscuit", "thing", "real", ["the dog", "my dog", "Бисквит"]),
    ("n_brightline", "Brightline Health", "org", "real", ["Brightline", "my old job"]),
    ("n_juniper", "Juniper & Grind", "place", "real",
     ["Juniper", "the café", "the coffee shop"]),
    ("n_port_alder", "Port Alder", "place", "real", ["the city"]),
    ("n_fenwick", "Fenwick Street flat", "place", "real", ["Fenwick Street", "the old flat"]),
    ("n_larch", "Larch Lane flat", "place", "real", ["Larch Lane", "the little flat"]),
    ("n_quarry", "Quarry Road house", "place", "real", ["Quarry Road", "Sam's house", "home"]),
    ("n_dacha", "Baba Vera's dacha", "place", "real", ["the dacha", "дача"]),
    ("n_trail", "Alder Point trail", "place", "real", ["the trail", "Alder Point"]),
    ("n_running", "Running", "skill", "real", ["running", "runs", "бег"]),
    ("n_harriers", "Alder Harriers", "community", "real", ["the running club", "Harriers"]),
    ("n_thursday_ink", "Thursday Ink", "community", "real",
     ["the writing group", "Thursday group"]),
    ("n_russian", "Russian language", "skill", "real", ["Russian", "русский"]),
    ("n_money", "Money worries", "concept", "real", ["money", "rent", "bills", "деньги"]),
    ("n_burnout", "Burnout", "concept", "real", ["burnout", "выгорание"]),
    # a topic boundary (do_not_probe, docs/privacy.md): the events linked to it surface only
    # when a question names the topic itself
    ("n_boundary_papa", "Papa's death", "safety_boundary", "real",
     ["Papa's funeral", "Papa died", "how Papa died", "папа умер"]),
    # fiction_content: the novel's world
    ("p_ilse", "Ilse Marrow", "fictional_character", "fiction_content",
     ["Ilse", "the protagonist"]),
    ("p_crane", "Aldous Crane", "fictional_character", "fiction_content",
     ["Crane", "the Tallyman", "the villain", "the harbormaster"]),
    ("p_tamsin", "Old Tamsin", "fictional_character", "fiction_content", ["Tamsin"]),
    ("p_wren", "Wren Marrow", "fictional_character", "fiction_content", ["Wren"]),
    ("p_tobias", "Tobias Marrow", "fictional_character", "fiction_content",
     ["Tobias", "Ilse's father"]),
    ("p_cal", "Cal Rook", "fictional_character", "fiction_content", ["Cal", "the ferryman's son"]),
    ("n_greywick", "Greywick", "place", "fiction_content", ["the lighthouse town"]),
    ("n_orchard", "The Salt Orchard", "place", "fiction_content", ["the orchard"]),
    ("n_chapel", "The Drowned Chapel", "place", "fiction_content", ["the chapel"]),
    ("n_letters", "The unsent letters", "narrative_device", "fiction_content",
     ["unsent letters", "Ilse's letters"]),
    ("n_ledger", "Crane's ledger", "narrative_device", "fiction_content",
     ["the ledger", "the debt book"]),
    ("n_tide_clock", "The tide clock", "narrative_device", "fiction_content", ["the tide clock"]),
    # fiction_meta: the novel as a project
    ("n_manuscript", "The Salt Orchard manuscript", "project", "fiction_meta",
     ["the novel", "the book", "my novel", "the manuscript"]),
    ("n_draft1", "First draft", "project", "fiction_meta", ["draft one", "draft 1"]),
    ("n_draft2", "Second draft", "project", "fiction_meta", ["draft two", "draft 2"]),
    ("n_draft3", "Third draft", "project", "fiction_meta", ["draft three", "draft 3"]),
    ("n_query", "Query letter", "concept", "fiction_meta", ["queries", "the query"]),
    # meta_authorial: Nadia as an author
    ("p_author_self", "Nadia the writer", "fictionalized_self", "meta_authorial",
     ["writer-me", "the author-me"]),
    ("n_morning_pages", "Morning pages", "concept", "meta_authorial",
     ["the 6 a.m. pages", "writing habit"]),
    ("n_impostor", "The impostor voice", "concept", "meta_authorial",
     ["impostor voice", "the inner critic"]),
]

# --------------------------------------------------------------------------- relations
# (from, to, kind, strength)
RELATIONS = [
    ("p_mother", "p_self", "parent_of", 0.9),
    ("p_mother", "p_sister", "parent_of", 0.9),
    ("p_father", "p_self", "parent_of", 0.4),
    ("p_father", "p_sister", "parent_of", 0.35),
    ("p_father", "p_mother", "ex_partner_of", 0.5),
    ("p_grandma", "p_mother", "parent_of", 0.9),
    ("p_sister", "p_self", "sibling_of", 0.85),
    ("p_erik", "p_sister", "partner_of", 0.9),
    ("p_sister", "p_zoya", "parent_of", 0.95),
    ("p_self", "p_zoya", "aunt_of", 0.8),
    ("p_tom", "p_self", "ex_partner_of", 0.45),
    ("p_sam", "p_self", "partner_of", 0.9),
    ("p_dana", "p_self", "friend_of", 0.95),
    ("p_jonah", "p_self", "friend_of", 0.55),
    ("p_therapist", "p_self", "therapist_of", 0.85),
    ("p_self", "n_juniper", "works_at", 0.8),
    ("p_self", "n_brightline", "worked_at", 0.4),
    ("p_greg", "n_brightline", "works_at", 0.7),
    ("p_priya", "n_juniper", "owner_of", 0.8),
    ("p_jonah", "n_juniper", "works_at", 0.6),
    ("p_leonie", "p_self", "agent_of", 0.75),
    ("p_self", "n_biscuit", "cares_for", 0.95),
    ("p_self", "n_quarry", "lives_in", 0.9),
    ("p_sam", "n_quarry", "lives_in", 0.9),
    ("p_self", "n_larch", "lived_in", 0.5),
    ("p_self", "n_fenwick", "lived_in", 0.3),
    ("p_grandma", "n_dacha", "lived_in", 0.9),
    ("n_juniper", "n_port_alder", "located_in", 0.9),
    ("n_trail", "n_port_alder", "located_in", 0.9),
    ("p_self", "n_running", "practices", 0.85),
    ("p_self", "n_harriers", "member_of", 0.6),
    ("p_self", "n_thursday_ink", "member_of", 0.8),
    ("p_self", "n_russian", "speaks", 0.9),
    ("n_boundary_papa", "p_self", "protects", 0.9),
    ("p_self", "n_manuscript", "writes", 1.0),
    ("p_author_self", "p_self", "fictionalized_self_of", 0.9),
    ("p_author_self", "n_manuscript", "writes", 0.9),
    ("n_morning_pages", "p_author_self", "habit_of", 0.7),
    ("n_impostor", "p_author_self", "voice_of", 0.6),
    ("p_leonie", "n_manuscript", "represents", 0.8),
    ("p_ilse", "n_manuscript", "character_in", 1.0),
    ("p_crane", "n_manuscript", "character_in", 1.0),
    ("p_tamsin", "n_manuscript", "character_in", 0.9),
    ("p_wren", "n_manuscript", "character_in", 0.9),
    ("p_tobias", "n_manuscript", "character_in", 0.8),
    ("p_cal", "n_manuscript", "character_in", 0.7),
    ("p_ilse", "p_self", "based_on", 0.8),
    ("p_tamsin", "p_grandma", "based_on", 0.9),
    ("p_wren", "p_sister", "based_on", 0.6),
    ("p_tobias", "p_father", "based_on", 0.7),
    ("p_crane", "p_father", "based_on", 0.4),
    ("n_orchard", "n_dacha", "based_on", 0.7),
    ("p_ilse", "p_wren", "sibling_of", 0.8),
    ("p_tobias", "p_ilse", "parent_of", 0.9),
    ("p_tamsin", "p_ilse", "mentor_of", 0.85),
    ("p_crane", "p_ilse", "antagonist_of", 0.9),
    ("p_cal", "p_ilse", "friend_of", 0.7),
    ("p_crane", "n_ledger", "owns", 0.95),
    ("p_ilse", "n_letters", "writes", 0.9),
    ("n_orchard", "n_greywick", "located_in", 0.9),
    ("n_chapel", "n_greywick", "located_in", 0.9),
    ("n_tide_clock", "n_greywick", "located_in", 0.6),
    ("n_draft1", "n_manuscript", "part_of", 0.9),
    ("n_draft2", "n_manuscript", "part_of", 0.9),
    ("n_draft3", "n_manuscript", "part_of", 0.9),
    ("n_query", "n_manuscript", "part_of", 0.6),
]


# --------------------------------------------------------------------------- helpers
def emo(spec: str) -> dict:
    """'sadness .8 shame .6' -> {'sadness': 0.8, 'shame': 0.6}."""
    parts = spec.split()
    if len(parts) % 2:
        raise ValueError(f"emotion spec needs name/value pairs: {spec!r}")
    out = {}
    for name, value in zip(parts[0::2], parts[1::2], strict=True):
        if name not in EMOTIONS:
            raise ValueError(f"unknown emotion {name!r}")
        out[name] = float(value)
    return out


def bio(hrv=None, sleep=None, stress=None, hr=None, trend=None, workout=None) -> dict:
    out = {}
    if hrv is not None:
        out["hrv"] = hrv
    if sleep is not None:
        out["sleep_quality"] = sleep
    if stress is not None:
        out["stress_proxy"] = stress
    if hr is not None:
        out["hr_trend"] = hr
    if trend is not None:
        out["hrv_trend"] = trend
    if workout is not None:
        out["workout"] = workout
    return out


# Default pinning per belief class: (confidence_floor, archivable)
CLASS_DEFAULTS = {
    "axiom": (0.85, 0),
    "self_model": (0.3, 0),
    "user_model": (0.2, 0),
    "operational": (0.0, 1),
    "hypothesis": (0.0, 1),
}

EVENTS: list[dict] = []


def ev(eid, ts, domain, cls, title, desc, ents, emotions="", sent=0.0, label="",
       parents=(), flag=0, bio=None, floor=None, archivable=None):
    """Record one event. `eid` is a symbolic id used only inside this script (for parents);
    `emotions` is a compact 'name value ...' string; `flag` is user_flag; `floor` and
    `archivable` override CLASS_DEFAULTS."""
    EVENTS.append(dict(id=eid, ts=ts, domain=domain, cls=cls, title=title, desc=desc,
                       ents=list(ents), emotions=emo(emotions), sent=sent, label=label,
                       parents=list(parents), flag=flag, bio=bio, floor=floor,
                       archivable=archivable))


R, FC, FM, MA = "real", "fiction_content", "fiction_meta", "meta_authorial"
AX, SM, UM, OP, HY = "axiom", "self_model", "user_model", "operational", "hypothesis"


# =========================================================================== events
# ---------------------------------------------------------------- 2020: lockdown, therapy
ev("lockdown", "2020-03-16T09:10:00Z", R, OP,
   "Brightline sends everyone home",
   "The office closed with a two-line email. Nadia set up her laptop on the Fenwick Street "
   "kitchen table while Tom took calls in the bedroom. She said the silence of the flat felt "
   "like holding her breath.",
   ["p_self", "n_brightline", "n_fenwick", "p_tom"],
   "fear .5 surprise .4 anticipation .3", -0.3, "uncertainty")

ev("mama_calls", "2020-03-29T18:40:00Z", R, OP,
   "Мама звонит каждый день",
   "Мама теперь звонит каждый вечер и спрашивает, ела ли я. Она боится за бабушку Веру, "
   "которая одна на даче и не хочет переезжать в город. Я говорю «всё хорошо», хотя не сплю.",
   ["p_self", "p_mother", "p_grandma", "n_dacha", "n_russian"],
   "fear .5 trust .5 sadness .3", -0.2, "worry")

ev("therapy_start", "2020-04-14T16:00:00Z", R, OP,
   "First session with Dr. Helen Marsh",
   "Nadia's first video session with Helen. She came for insomnia and a 'general buzzing "
   "dread'. She apologised four times in fifty minutes for taking up time. Helen asked her to "
   "notice that.",
   ["p_self", "p_therapist"],
   "fear .6 anticipation .4 shame .3 trust .3", -0.2, "burden",
   bio=bio(hrv=52, sleep=0.35, stress=0.7, hr="elevated_3d"))

ev("papa_left", "2020-04-28T16:00:00Z", R, AX,
   "The day Papa left",
   "In her third session Nadia told the story for the first time out loud. She was seven; it "
   "was February and still dark at eight. Papa packed the blue suitcase while she pretended to "
   "sleep, and he did not say goodbye. The week before she had broken his radio, and for "
   "twenty-one years part of her has believed that was why he went. Abandonment is the oldest "
   "wound in this memory.",
   ["p_self", "p_father", "p_mother", "p_therapist"],
   "shame .9 sadness .8 fear .5 guilt .4", -0.85, "core wound",
   parents=["therapy_start"], flag=1, floor=0.9)

ev("c25k", "2020-05-09T07:15:00Z", R, OP,
   "Started couch-to-5k on the Alder Point trail",
   "First run of a beginner plan: one minute running, ninety seconds walking, eight times. "
   "She was the slowest person on the trail and did not care. 'My head went quiet for twenty "
   "minutes.'",
   ["p_self", "n_running", "n_trail"],
   "joy .5 anticipation .5 fear .2", 0.5, "small win",
   bio=bio(hrv=71, sleep=0.72, stress=0.3, workout=True))

ev("leave_first", "2020-05-23T16:00:00Z", R, SM,
   "\"I leave before I can be left\"",
   "Nadia noticed a pattern in therapy: in friendships, jobs and her marriage she pulls away "
   "first, quietly, so that nobody can leave her. She called it 'getting my suitcase packed "
   "before anyone else does'.",
   ["p_self", "p_therapist", "p_father"],
   "shame .6 sadness .5 fear .4", -0.5, "wound",
   parents=["papa_left"])

ev("dana_call", "2020-06-06T20:30:00Z", R, OP,
   "Video call with Dana",
   "Dana Whitfield, her best friend since university, did an impression of their old "
   "statistics lecturer until Nadia laughed so hard she cried. First real laugh in weeks.",
   ["p_self", "p_dana"],
   "joy .6 trust .7", 0.7, "joy")

ev("first5k", "2020-06-20T07:00:00Z", R, OP,
   "First 5k without stopping",
   "Thirty-four minutes, no walking breaks. She sent Dana a blurry photo of her red face at the "
   "Alder Point bench.",
   ["p_self", "n_running", "n_trail", "p_dana"],
   "joy .8 surprise .4", 0.8, "milestone",
   parents=["c25k"], bio=bio(hrv=76, sleep=0.8, stress=0.2, trend="rising", workout=True))

ev("um_running", "2020-07-11T09:00:00Z", R, UM,
   "Running is how Nadia regulates",
   "Pattern across two months: on days after a run Nadia talks about herself more kindly and "
   "sleeps better. When she stops running, self-criticism rises within a week.",
   ["p_self", "n_running"],
   "trust .4 joy .3", 0.3, "")

ev("kids_argument", "2020-07-25T21:45:00Z", R, OP,
   "Argument with Tom about having children",
   "Tom said he wanted to start trying 'soon, while we're home anyway'. Nadia froze, then "
   "snapped that she couldn't promise a child a father who stays. Tom heard it as an accusation. "
   "They went to bed without speaking.",
   ["p_self", "p_tom", "n_fenwick"],
   "fear .6 anger .4 sadness .4 guilt .3", -0.6, "conflict")

ev("novel_start", "2020-08-08T05:20:00Z", FM, OP,
   "The first page of The Salt Orchard",
   "Awake at five again, Nadia opened a blank document instead of her phone and wrote a "
   "paragraph about a girl in a lighthouse town who talks to apple trees. She called it The "
   "Salt Orchard before she knew what it was about.",
   ["p_self", "n_manuscript", "p_author_self"],
   "anticipation .7 joy .5 surprise .3", 0.6, "spark")

ev("ilse_born", "2020-08-15T06:00:00Z", FC, OP,
   "Ilse Marrow is born",
   "The protagonist takes shape: Ilse Marrow, seventeen, the lighthouse keeper's daughter in "
   "Greywick, who tends the apple trees that somehow grow in salt ground at the edge of the "
   "cliff. Stubborn, watchful, always waiting for someone to come back.",
   ["p_ilse", "n_greywick", "n_orchard"],
   "anticipation .6 joy .4", 0.4, "")

ev("vera_apples", "2020-08-30T17:00:00Z", R, OP,
   "Бабушка Вера прислала фото яблонь",
   "Мама переслала фотографию от бабушки Веры: старые яблони на даче, все в яблоках, и "
   "бабушка в синем платке. Надя поняла, что сад в её романе — это бабушкин сад.",
   ["p_self", "p_grandma", "p_mother", "n_dacha", "n_orchard"],
   "joy .5 trust .6 sadness .3", 0.5, "tender")

ev("ma_visiting_vera", "2020-09-12T06:10:00Z", MA, HY,
   "Maybe writing is a way to visit Baba Vera",
   "Nadia wondered whether she writes the orchard scenes because she cannot travel to the "
   "dacha: every grafting scene is an afternoon she spent there at nine years old.",
   ["p_author_self", "p_grandma", "n_orchard", "n_dacha"],
   "sadness .4 trust .4 anticipation .3", 0.2, "",
   parents=["vera_apples"])

ev("crunch1", "2020-09-26T22:30:00Z", R, OP,
   "Product launch crunch at Brightline",
   "Sixty-hour weeks before the patient-app launch. Greg called her research 'the backbone of "
   "the release'. She glowed for a day and then worked until 1 a.m. for a week.",
   ["p_self", "n_brightline", "p_greg"],
   "anticipation .5 fear .4 joy .3", -0.3, "burden",
   bio=bio(hrv=55, sleep=0.45, stress=0.7))

ev("um_fine", "2020-10-10T20:00:00Z", R, UM,
   "When Nadia says \"I'm fine\", she usually isn't",
   "Tom pointed it out and Nadia agreed: 'fine' is her word for overwhelmed. Asking a second, "
   "more specific question ('fine like tired, or fine like scared?') usually opens her up.",
   ["p_self", "p_tom"],
   "sadness .3 trust .3", -0.1, "")

ev("tobias_gone", "2020-10-24T06:00:00Z", FC, OP,
   "Tobias Marrow does not come home",
   "Ilse's father rows out past the point in a rising storm to check the nets and does not "
   "come back. Two days later his boat drifts into the harbour, empty, oars shipped neatly as "
   "if he had simply stepped out.",
   ["p_tobias", "p_ilse", "n_greywick"],
   "sadness .8 fear .6 surprise .5", -0.7, "",
   parents=["ilse_born"])

ev("coffee_dana_2020", "2020-11-07T11:00:00Z", R, OP,
   "Coffee with Dana outside Juniper & Grind",
   "First in-person meeting since spring: masks off only to sip, two flat whites on the bench "
   "outside Juniper & Grind. Dana ordered the cardamom bun and split it without asking.",
   ["p_self", "p_dana", "n_juniper"],
   "joy .6 trust .7", 0.6, "warmth")

ev("sm_holder", "2020-11-21T19:00:00Z", R, SM,
   "\"I am the one who holds the family together\"",
   "Nadia organises Mama's shopping deliveries, calls the village about Baba Vera and reminds "
   "Katya of birthdays. She said it with pride and then, quieter, that she is tired of being "
   "the glue.",
   ["p_self", "p_mother", "p_sister", "p_grandma"],
   "sadness .4 anger .3 trust .3", -0.2, "burden")

ev("katya_fight1", "2020-12-24T19:30:00Z", R, OP,
   "Christmas Eve argument with Katya",
   "On the family call Nadia mentioned Papa; Katya snapped that Nadia 'always makes everything "
   "about Papa' and that Mama doesn't need it at Christmas. Nadia hung up on her sister and "
   "cried in the bathroom so Tom wouldn't hear.",
   ["p_self", "p_sister", "p_mother", "p_father"],
   "anger .8 sadness .5 shame .4 guilt .3", -0.7, "conflict")

ev("first_letter", "2020-12-31T23:10:00Z", FC, OP,
   "Ilse's first unsent letter",
   "New Year's Eve in Greywick: Ilse writes to her missing father, 'I kept the lamp lit. I am "
   "not angry. I am very angry.' She folds it into the tide clock's case, where nobody looks.",
   ["p_ilse", "p_tobias", "n_letters", "n_tide_clock"],
   "sadness .7 anger .4 anticipation .3", -0.4, "",
   parents=["tobias_gone"])

# ---------------------------------------------------------------- 2021: grief, burnout
ev("sled_photo", "2021-01-09T10:00:00Z", R, OP,
   "Katya sends a photo of the old sled",
   "No words, just a photo of the wooden sled the sisters shared as children. Nadia replied "
   "with a heart. Not a conversation, but a door left open.",
   ["p_self", "p_sister"],
   "trust .4 sadness .3 joy .3", 0.3, "repair",
   parents=["katya_fight1"])

ev("vera_stroke", "2021-01-30T07:30:00Z", R, OP,
   "Мама: бабушке плохо",
   "Сообщение от мамы в шесть утра: у бабушки Веры инсульт, её увезли в районную больницу. "
   "Границы закрыты, полететь нельзя. Надя весь день звонила в больницу и никто не отвечал.",
   ["p_self", "p_mother", "p_grandma"],
   "fear .8 sadness .6", -0.8, "wound",
   bio=bio(hrv=50, sleep=0.3, stress=0.8, hr="elevated_3d"))

ev("vera_died", "2021-02-11T04:50:00Z", R, AX,
   "Baba Vera died",
   "Vera Sokolova, her grandmother, died at eighty-six in the district hospital, twelve days "
   "after the stroke. The borders were closed; Nadia could not fly. Baba Vera was the one who "
   "stayed when Papa left: summers at the dacha, grafting apple trees, the blue headscarf. "
   "Nadia says the world lost its floor.",
   ["p_self", "p_grandma", "p_mother", "n_dacha"],
   "sadness 1.0 guilt .6 fear .3", -0.95, "grief",
   parents=["vera_stroke"], flag=1, floor=0.9,
   bio=bio(hrv=47, sleep=0.3, stress=0.8, hr="elevated_3d", trend="declining_3d"))

ev("funeral_video", "2021-02-13T09:00:00Z", R, OP,
   "Похороны по видео",
   "Мама держала телефон над могилой. Надя видела только снег, чёрные пальто и край гроба. "
   "Связь прерывалась. Она сидела на полу кухни на Фенвик-стрит и не могла встать.",
   ["p_self", "p_mother", "p_grandma", "n_fenwick"],
   "sadness .9 guilt .5", -0.9, "grief",
   parents=["vera_died"])

ev("wasnt_there", "2021-02-27T16:00:00Z", R, SM,
   "\"I wasn't there\"",
   "Nadia's belief after the funeral: 'I abandon the people who love me, just like he did.' "
   "She connected not being at Baba Vera's bedside with Papa's suitcase.",
   ["p_self", "p_grandma", "p_father"],
   "shame .7 guilt .7 sadness .6", -0.7, "wound",
   parents=["funeral_video"])

ev("helen_guilt", "2021-03-13T16:00:00Z", R, OP,
   "Helen names survivor's guilt",
   "Helen called it grief plus an old abandonment script. She pointed out that a closed border "
   "is not a packed suitcase. Nadia wrote the sentence down.",
   ["p_self", "p_therapist", "p_grandma"],
   "trust .6 sadness .5 guilt .3", 0.1, "repair",
   parents=["wasnt_there"])

ev("tamsin_intro", "2021-03-27T06:00:00Z", FC, OP,
   "Old Tamsin teaches Ilse to graft",
   "A new character: Old Tamsin, who has kept the Salt Orchard for sixty years, teaches Ilse to "
   "graft a sweet branch onto a bitter root. 'You don't choose the root, girl. You choose what "
   "you grow on it.'",
   ["p_tamsin", "p_ilse", "n_orchard"],
   "trust .7 sadness .3 joy .3", 0.4, "")

ev("cry_run", "2021-04-17T06:40:00Z", R, OP,
   "Cried halfway through a dawn run",
   "Eight kilometres at dawn on the trail. At the turnaround she cried for Baba Vera, then ran "
   "home. 'Lighter, like I'd put something down.'",
   ["p_self", "n_running", "n_trail", "p_grandma"],
   "sadness .6 trust .3 joy .3", 0.2, "release",
   bio=bio(hrv=68, sleep=0.6, stress=0.4, workout=True))

ev("promotion", "2021-05-14T15:00:00Z", R, OP,
   "Promoted to lead UX researcher",
   "Greg told her on a video call: lead researcher, six people, a real raise. She ordered "
   "dumplings with Tom and felt, for a night, that she had finally earned her place.",
   ["p_self", "n_brightline", "p_greg", "p_tom"],
   "joy .6 anticipation .6 fear .3", 0.6, "milestone")

ev("tide_clock", "2021-05-29T06:00:00Z", FC, OP,
   "The tide clock stops",
   "The brass tide clock in the lighthouse, which Tobias wound every morning, stops at the hour "
   "he rowed out. Ilse refuses to wind it. The town reads it as a sign she is still waiting.",
   ["n_tide_clock", "p_ilse", "p_tobias", "n_greywick"],
   "sadness .6 anticipation .3", -0.4, "")

ev("um_useful", "2021-06-05T20:00:00Z", R, UM,
   "Nadia's sense of worth is tied to being useful",
   "When praised for work she lights up; when she rests she apologises for it. Compliments "
   "about who she is (not what she did) make her change the subject.",
   ["p_self"],
   "shame .3 sadness .2", -0.1, "")

ev("dana_bday", "2021-06-19T21:00:00Z", R, OP,
   "Left Dana's birthday early to finish slides",
   "A small picnic in the park for Dana's thirtieth. Nadia left after an hour to finish a "
   "deck for Greg. Dana said 'of course' in the voice that means it isn't.",
   ["p_self", "p_dana", "p_greg"],
   "guilt .5 sadness .3", -0.4, "")

ev("overload", "2021-07-10T23:40:00Z", R, OP,
   "Two resignations, their work lands on Nadia",
   "Two researchers on her team quit within a week and Greg asked her to 'absorb' their "
   "projects. She said yes before he finished the sentence.",
   ["p_self", "n_brightline", "p_greg", "n_burnout"],
   "fear .5 anger .3 shame .2", -0.6, "burden",
   parents=["promotion"],
   bio=bio(hrv=54, sleep=0.4, stress=0.75, hr="elevated_3d"))

ev("crane_intro", "2021-08-01T06:00:00Z", FC, OP,
   "Aldous Crane buys the debts",
   "The villain arrives: Aldous Crane, the harbormaster, the Tallyman, knocks with a leather "
   "ledger. Tobias owed him money, the debt has passed to his daughters, and the Salt Orchard "
   "is the collateral. He is polite, patient and completely without mercy.",
   ["p_crane", "p_ilse", "n_ledger", "n_orchard"],
   "fear .6 anger .5 disgust .4", -0.6, "")

ev("tom_distance", "2021-08-21T22:00:00Z", R, OP,
   "Tom: \"You live at the laptop\"",
   "Because of her insomnia they have been sleeping in separate rooms. Tom said he feels like "
   "a flatmate. Nadia heard 'you are failing' and said nothing.",
   ["p_self", "p_tom", "n_fenwick"],
   "sadness .6 shame .4 anger .3", -0.6, "")

ev("stopped_running", "2021-09-11T22:50:00Z", R, OP,
   "Stopped running: \"no time\"",
   "Three weeks without a run. Her watch showed resting heart rate creeping up and HRV sliding; "
   "she turned off the notifications.",
   ["p_self", "n_running", "n_burnout"],
   "sadness .4 fear .3 shame .3", -0.5, "burden",
   bio=bio(hrv=51, sleep=0.35, stress=0.8, trend="declining_3d", workout=False))

ev("hy_greg_approval", "2021-10-02T20:00:00Z", R, HY,
   "Maybe Greg's praise stands in for a father's approval",
   "A tentative reading: Nadia works hardest for older men who praise her, and Greg's 'backbone "
   "of the release' landed where a father's voice should have been.",
   ["p_self", "p_greg", "p_father"],
   "sadness .3 shame .3", -0.2, "")

ev("panic", "2021-10-23T10:20:00Z", R, OP,
   "Panic attack in a stakeholder meeting",
   "Mid-presentation her hands started shaking and she couldn't get a breath. She turned her "
   "camera off, said her connection dropped and lay on the floor for forty minutes.",
   ["p_self", "n_brightline", "n_burnout"],
   "fear .9 shame .7 surprise .4", -0.85, "burden",
   parents=["overload"],
   bio=bio(hrv=44, sleep=0.25, stress=0.9, hr="elevated_overnight", trend="declining_3d"))

ev("burnout", "2021-11-08T11:00:00Z", R, AX,
   "Burnout diagnosis",
   "The GP signed her off for eight weeks: burnout and a moderate depressive episode. Nadia "
   "cried in the car park because she had honestly believed she was just lazy. It became the "
   "line she measures every later overload against.",
   ["p_self", "n_burnout", "n_brightline"],
   "shame .8 sadness .7 fear .6 surprise .3", -0.8, "burden",
   parents=["panic"], flag=1, floor=0.85,
   bio=bio(hrv=42, sleep=0.2, stress=0.85, hr="elevated_3d", trend="declining_3d"))

ev("um_depleted", "2021-11-20T20:00:00Z", R, UM,
   "Signs that Nadia is depleted",
   "When she is running on empty Nadia skips meals, rewrites the same paragraph for hours and "
   "stops answering Dana. These show up days before she names being tired.",
   ["p_self", "n_burnout", "p_dana"],
   "sadness .3 fear .3", -0.2, "")

ev("walk_dana", "2021-12-04T13:00:00Z", R, OP,
   "First walk in a month, with Dana",
   "Dana picked her up and drove to Alder Point. They walked slowly and didn't talk much. Nadia "
   "said it was the first time in weeks she felt accompanied rather than watched.",
   ["p_self", "p_dana", "n_trail"],
   "trust .7 sadness .4", 0.3, "care", bio=bio(hrv=58, sleep=0.5, stress=0.5))

ev("mama_letter_rest", "2021-12-18T19:00:00Z", R, OP,
   "Письмо от мамы: отдыхай",
   "Мама написала длинное письмо: «Наденька, отдыхай. Ты не обязана быть сильной за всех. "
   "Бабушка бы сказала то же самое». Надя перечитала его три раза.",
   ["p_self", "p_mother", "p_grandma", "n_russian"],
   "trust .7 sadness .5 joy .3", 0.4, "tender")

ev("words31k", "2021-12-30T15:00:00Z", FM, OP,
   "Manuscript reaches 31,000 words",
   "Writing slowly during sick leave, one scene a day, the novel crossed 31,000 words. It was "
   "the only thing she did in December that didn't feel like a test.",
   ["p_self", "n_manuscript"],
   "anticipation .5 joy .4", 0.4, "",
   parents=["novel_start"])

# ---------------------------------------------------------------- 2022: leaving, divorce
ev("resign", "2022-01-14T12:00:00Z", R, OP,
   "Resigned from Brightline",
   "She sent the resignation email from her sick-leave sofa and then sat very still, waiting "
   "to feel like a failure. Mostly she felt relief, and underneath it a cold fear about money.",
   ["p_self", "n_brightline", "p_greg", "n_burnout"],
   "fear .6 joy .4 surprise .2", 0.1, "relief",
   parents=["burnout"])

ev("not_job_title", "2022-01-29T16:00:00Z", R, SM,
   "\"I am not my job title\"",
   "Helen's sentence, now on a sticky note on the fridge. Nadia said she believes it about "
   "forty per cent, which is forty more than last year.",
   ["p_self", "p_therapist"],
   "trust .5 anticipation .4", 0.4, "repair")

ev("money1", "2022-02-12T21:00:00Z", R, OP,
   "Money worries: savings will last four months",
   "Nadia built a spreadsheet of rent, bills and savings and found four months of runway. She "
   "lay awake doing the sums again, the way Mama did in the nineties.",
   ["p_self", "n_money", "p_mother"],
   "fear .7 shame .3", -0.6, "burden", bio=bio(sleep=0.45, stress=0.65))

ev("morning_pages", "2022-02-19T06:00:00Z", MA, OP,
   "Morning pages at six",
   "A new rule: three handwritten pages at 6 a.m. before anything else, no rereading. Most of "
   "it is complaint and grocery lists; some of it turns into Ilse.",
   ["p_author_self", "n_morning_pages", "n_manuscript"],
   "anticipation .5 trust .4", 0.4, "")

ev("storm_festival", "2022-02-26T06:30:00Z", FC, OP,
   "Greywick's storm-lantern night",
   "The whole town walks to the harbour with lanterns for the men lost at sea. Ilse refuses to "
   "carry one for Tobias; carrying it would mean he is dead. Wren carries two.",
   ["p_ilse", "p_wren", "p_tobias", "n_greywick"],
   "sadness .7 anger .3 trust .3", -0.5, "",
   parents=["tide_clock"])

ev("first_shift", "2022-03-05T07:00:00Z", R, OP,
   "First shift at Juniper & Grind",
   "Priya Nair hired her for morning shifts at the coffee shop. She burned two jugs of milk, "
   "mixed up three orders and laughed about it with Jonah by ten o'clock. Her body felt like "
   "her own again.",
   ["p_self", "p_priya", "p_jonah", "n_juniper", "n_money"],
   "joy .6 anticipation .5 fear .3", 0.6, "new start",
   parents=["money1"])

ev("um_cafe_rhythm", "2022-03-19T15:00:00Z", R, UM,
   "Nadia likes work with clear endings",
   "She says the café is good for her because every task ends: a cup is made, handed over, "
   "done. Open-ended work with no finish line is where her anxiety grows.",
   ["p_self", "n_juniper"],
   "trust .4 joy .3", 0.3, "")

ev("separation", "2022-04-09T21:00:00Z", R, AX,
   "Tom asks for a separation",
   "After dinner Tom said he wanted to separate: 'I've been lonely in this marriage for two "
   "years.' He was not cruel. Nadia felt the floor tilt and heard herself say 'okay' like a "
   "seven-year-old pretending to be asleep.",
   ["p_self", "p_tom", "n_fenwick"],
   "sadness .9 fear .7 surprise .7 shame .6", -0.9, "wound",
   parents=["tom_distance"], flag=1, floor=0.8,
   bio=bio(hrv=49, sleep=0.3, stress=0.8, hr="elevated_overnight"))

ev("dana_soup", "2022-04-10T19:00:00Z", R, OP,
   "Dana came with soup and stayed",
   "Dana arrived with a pot of soup and a toothbrush, slept on the sofa, and made tea every "
   "time Nadia woke up. 'You don't have to be good company.'",
   ["p_self", "p_dana"],
   "trust .9 sadness .6", 0.3, "care")

ev("hy_left_first", "2022-04-23T16:00:00Z", R, HY,
   "Perhaps she left the marriage emotionally first",
   "A hypothesis from therapy: the separate rooms and late nights may have been Nadia's "
   "'leave first' script at work, and Tom only said out loud what had already happened.",
   ["p_self", "p_tom", "p_therapist"],
   "guilt .5 shame .4 sadness .4", -0.4, "")

ev("run_jonah", "2022-05-07T08:00:00Z", R, OP,
   "Back to running, slow 3k with Jonah",
   "Jonah from the café talked her into a slow three kilometres after a shift. Her legs were "
   "heavy and her head was light.",
   ["p_self", "p_jonah", "n_running", "n_trail"],
   "joy .5 trust .4", 0.5, "small win",
   bio=bio(hrv=66, sleep=0.6, stress=0.4, workout=True))

ev("wren_sell", "2022-05-21T06:00:00Z", FC, OP,
   "Wren wants to sell the orchard",
   "Ilse's younger sister Wren wants to accept Crane's offer and leave Greywick for the city. "
   "'It's trees, Ilse. He's not coming back.' Ilse slams the door.",
   ["p_wren", "p_ilse", "p_crane", "n_orchard"],
   "anger .5 sadness .4 fear .3", -0.5, "")

ev("separation_papers", "2022-06-11T14:00:00Z", R, OP,
   "Signed the separation agreement",
   "They split the books at the kitchen table, politely. Tom kept the coffee machine; Nadia "
   "kept the Russian poetry and the chipped blue mug.",
   ["p_self", "p_tom", "n_fenwick"],
   "sadness .7 anger .3", -0.6, "",
   parents=["separation"])

ev("move_larch", "2022-06-25T12:00:00Z", R, OP,
   "Moved into the Larch Lane flat",
   "One room, a kitchen the size of a cupboard and a window onto a chestnut tree. The first "
   "night she slept on a mattress on the floor and kept waking to check that the door was "
   "locked. It is hers.",
   ["p_self", "n_larch", "p_dana"],
   "anticipation .5 fear .4 sadness .4", -0.1, "new start",
   parents=["separation_papers"], flag=1, floor=0.4, archivable=0)

ev("mama_doesnt_know", "2022-07-09T23:00:00Z", R, OP,
   "Мама не знает про развод",
   "Запись в дневнике: «Я до сих пор не сказала маме. Боюсь услышать: я же говорила. "
   "Боюсь, что она подумает, что я как папа — ухожу».",
   ["p_self", "p_mother", "p_father", "n_russian"],
   "shame .6 fear .5", -0.6, "wound")

ev("told_mama", "2022-07-16T18:00:00Z", R, OP,
   "Told Mama about the divorce",
   "On the phone, in Russian. Mama was quiet for a long time and then said: 'You are my "
   "daughter, not your marriage.' Nadia had to sit down on the stairs.",
   ["p_self", "p_mother", "n_russian"],
   "trust .7 sadness .5 surprise .4", 0.4, "repair",
   parents=["mama_doesnt_know"])

ev("three_parts", "2022-08-06T06:00:00Z", FM, OP,
   "The novel gets its shape: Salt, Root, Fruit",
   "Nadia decided the book has three parts: Salt (the loss), Root (the debt) and Fruit (what "
   "Ilse grows anyway). The outline fits on one index card.",
   ["p_self", "n_manuscript"],
   "anticipation .6 joy .4", 0.5, "")

ev("dental_bill", "2022-08-20T20:00:00Z", R, OP,
   "Rent and a dental bill in the same week",
   "A cracked molar cost more than a week of shifts. She decided not to buy a winter coat and "
   "felt ashamed for being thirty and this close to the edge.",
   ["p_self", "n_money", "n_larch"],
   "fear .6 shame .4", -0.6, "burden",
   bio=bio(hrv=56, sleep=0.4, stress=0.7))

ev("ink_first", "2022-09-10T18:30:00Z", R, OP,
   "First evening at Thursday Ink",
   "The writing group meets in the back room of the library. Nadia read two pages aloud with "
   "shaking hands. A retired teacher said the lighthouse felt 'lonely in a true way'.",
   ["p_self", "n_thursday_ink", "n_manuscript"],
   "fear .6 joy .5 surprise .3", 0.4, "")

ev("impostor1", "2022-09-24T22:00:00Z", MA, SM,
   "\"Real writers don't pour coffee\"",
   "The impostor voice gets a name. After Thursday Ink it said: real writers have agents and "
   "degrees, not aprons. Nadia noticed it sounds like nobody she knows and like everybody.",
   ["p_author_self", "n_impostor", "n_juniper"],
   "shame .7 sadness .3", -0.5, "wound",
   parents=["ink_first"])

ev("divorce_final", "2022-10-14T10:00:00Z", R, OP,
   "Divorce final",
   "The email from the court was three lines long. She took Dana's advice and marked it: a "
   "walk, a candle, a slice of honey cake. Grief and relief in roughly equal measure.",
   ["p_self", "p_tom", "p_dana"],
   "sadness .6 trust .3 joy .2", -0.3, "grief",
   parents=["separation_papers"], flag=1, floor=0.4, archivable=0)

ev("um_quiet", "2022-10-29T20:00:00Z", R, UM,
   "Nadia goes quiet instead of asking for help",
   "Across the divorce, the money and the burnout, she tells people after the crisis, never "
   "during. Silence from Nadia is a signal, not an absence.",
   ["p_self"],
   "sadness .3 fear .2", -0.2, "")

ev("chapel", "2022-11-12T06:00:00Z", FC, OP,
   "The Drowned Chapel at low tide",
   "At the lowest tide of the year Ilse walks out to the flooded chapel and finds her father's "
   "name carved into a pew, next to a date from before she was born. He had been here, "
   "alone, often.",
   ["n_chapel", "p_ilse", "p_tobias", "n_greywick"],
   "surprise .6 sadness .6 fear .3", -0.3, "")

ev("dana_engaged", "2022-11-26T16:00:00Z", R, OP,
   "Coffee with Dana: she's engaged to Leah",
   "After Nadia's shift at Juniper & Grind Dana held out her hand with a ring on it. Nadia "
   "screamed loud enough that Priya came out of the back.",
   ["p_self", "p_dana", "n_juniper", "p_priya"],
   "joy .8 surprise .6 sadness .2", 0.8, "joy")

ev("xmas_decline", "2022-12-17T19:00:00Z", R, OP,
   "Declined Katya's Christmas invitation",
   "Katya invited her to Christmas at hers and Erik's. Nadia said she had café shifts, which "
   "was only partly true.",
   ["p_self", "p_sister", "p_erik"],
   "guilt .5 sadness .4 fear .3", -0.4, "")

ev("hy_declining_katya", "2023-01-14T16:00:00Z", R, HY,
   "Avoiding Katya may be avoiding the Papa comparison",
   "A possibility: Nadia declines Katya's invitations because at family tables she feels like "
   "'the one who left' – the divorced one, the one who talks about Papa.",
   ["p_self", "p_sister", "p_father"],
   "shame .4 sadness .4", -0.3, "",
   parents=["xmas_decline"])

ev("parts", "2023-02-04T16:00:00Z", R, OP,
   "Helen introduces the seven-year-old part",
   "Helen asked Nadia to picture the seven-year-old who thinks she broke the radio and made "
   "Papa leave, and to ask what she needs. Nadia said: 'Someone to tell her it wasn't her.'",
   ["p_self", "p_therapist", "p_father"],
   "sadness .6 trust .7 shame .4", 0.0, "")

ev("little_nadia", "2023-02-18T16:00:00Z", R, SM,
   "\"Little Nadia isn't bad. She was seven.\"",
   "A new sentence about herself, said out loud at the end of a session. She laughed at how "
   "obvious it sounds and then didn't laugh.",
   ["p_self", "p_therapist"],
   "sadness .5 trust .5 shame .4", 0.3, "repair",
   parents=["parts"])

ev("biscuit", "2023-03-11T11:00:00Z", R, AX,
   "Adopted Biscuit",
   "Her first dog: a scruffy three-year-old terrier mix from the Port Alder shelter, one ear up, "
   "one down. Nadia: 'The first thing I've chosen to love on purpose since the divorce, knowing it "
   "might hurt.' Biscuit has been at the centre of her days ever since.",
   ["p_self", "n_biscuit", "n_larch"],
   "joy .9 trust .7 fear .2", 0.9, "milestone", floor=0.8)

ev("um_biscuit", "2023-04-08T20:00:00Z", R, UM,
   "Biscuit is Nadia's anchor on bad days",
   "She walks Biscuit twice a day even when she cannot do anything else. Asking about Biscuit "
   "is a gentle way into how she is.",
   ["p_self", "n_biscuit"],
   "trust .6 joy .4", 0.5, "")

ev("run_biscuit", "2023-04-22T06:30:00Z", R, OP,
   "Dawn run with Biscuit",
   "Seven kilometres on the trail, Biscuit leading the whole way and stopping to greet every "
   "other dog.",
   ["p_self", "n_biscuit", "n_running", "n_trail"],
   "joy .7 trust .4", 0.7, "joy",
   bio=bio(hrv=78, sleep=0.82, stress=0.2, trend="rising", workout=True))

ev("first10k", "2023-05-13T10:00:00Z", R, OP,
   "First 10k race: 58:40",
   "The Port Alder Spring 10k. She finished in 58:40, under an hour, and Dana was at the line "
   "with a sign that said GO NADIA, YOU ABSOLUTE UNIT.",
   ["p_self", "n_running", "p_dana", "n_port_alder"],
   "joy .9 surprise .4 trust .4", 0.9, "milestone",
   parents=["first5k"], bio=bio(hrv=74, sleep=0.75, stress=0.25, workout=True))

ev("crane_ledger_page", "2023-05-27T06:00:00Z", FC, OP,
   "Ilse finds her own name in Crane's ledger",
   "Ilse steals the ledger from the harbour office and finds a page headed with her own name, "
   "a sum beside it, and her father's handwriting underneath: a signature.",
   ["p_ilse", "p_crane", "n_ledger", "p_tobias"],
   "fear .7 anger .6 surprise .6", -0.6, "",
   parents=["crane_intro"])

ev("crane_papa", "2023-06-10T06:30:00Z", MA, SM,
   "The villain talks like Papa",
   "Rereading, Nadia noticed Crane says 'everyone pays, sooner or later' – one of Papa's "
   "phrases. She hadn't meant to put him in the villain. She sat with her coffee going cold.",
   ["p_author_self", "p_crane", "p_father", "n_manuscript"],
   "surprise .7 fear .4 shame .4", -0.3, "",
   parents=["crane_ledger_page"])

ev("katya_pregnant", "2023-06-24T19:00:00Z", R, OP,
   "Katya is pregnant",
   "Katya texted a scan photo. Nadia was happy, really, and also sat in the bath for an hour "
   "feeling strangely left behind.",
   ["p_self", "p_sister", "p_erik"],
   "joy .6 anticipation .5 sadness .4", 0.4, "")

ev("harriers", "2023-07-08T08:00:00Z", R, OP,
   "Joined the Alder Harriers Saturday group",
   "Her first group run with the club. She expected to be judged; instead a woman in her "
   "sixties paced her and told her about her allotment.",
   ["p_self", "n_harriers", "n_running"],
   "joy .5 trust .4 fear .3", 0.6, "",
   bio=bio(hrv=72, sleep=0.7, stress=0.3, workout=True))

ev("hy_left_behind", "2023-07-22T20:00:00Z", R, HY,
   "The sadness about Katya's baby may be about being left behind",
   "A tentative reading: Katya is building the family they didn't have, and Nadia fears being "
   "the one outside the window again.",
   ["p_self", "p_sister"],
   "sadness .4 fear .3", -0.3, "",
   parents=["katya_pregnant"])

ev("cafe_heat", "2023-08-12T17:00:00Z", R, OP,
   "Heatwave, broken air conditioning, hours cut",
   "The café's air conditioning died in a heatwave and Priya had to cut everyone's hours for "
   "three weeks. Nadia recalculated rent on the back of an order pad.",
   ["p_self", "p_priya", "n_juniper", "n_money"],
   "fear .5 anger .3", -0.5, "burden",
   bio=bio(hrv=57, sleep=0.4, stress=0.65))

ev("pickles", "2023-08-26T18:00:00Z", R, OP,
   "Мама учит солить огурцы",
   "По видео мама показала, как солить огурцы по бабушкиному рецепту: смородиновый лист, "
   "чеснок, укроп. Надя смеялась и немного плакала, у неё было три кривые банки.",
   ["p_self", "p_mother", "p_grandma", "n_russian"],
   "joy .6 trust .6 sadness .3", 0.6, "tender")

ev("ink_chapel", "2023-09-09T20:00:00Z", R, OP,
   "Thursday Ink goes silent for the chapel scene",
   "She read the Drowned Chapel chapter. Nobody spoke for a few seconds, then the group clapped. "
   "She walked home the long way, grinning at strangers.",
   ["p_self", "n_thursday_ink", "n_manuscript", "n_chapel"],
   "joy .8 surprise .5", 0.8, "milestone")

ev("cal_rook", "2023-09-23T06:00:00Z", FC, OP,
   "Cal Rook refuses Crane's money",
   "The ferryman's son, Cal Rook, turns down Crane's offer to buy his boat and starts helping "
   "Ilse in the orchard without being asked. A friendship that grows slowly.",
   ["p_cal", "p_ilse", "p_crane", "n_orchard"],
   "trust .6 joy .5", 0.5, "")

ev("tamsin_death", "2023-10-14T06:00:00Z", FC, OP,
   "Tamsin dies in the orchard",
   "Old Tamsin dies in the first frost, sitting under her favourite tree. Ilse grafts a branch "
   "from it onto the youngest root, so that something of her keeps growing.",
   ["p_tamsin", "p_ilse", "n_orchard"],
   "sadness .9 trust .4", -0.6, "grief",
   parents=["tamsin_intro"])

ev("cried_vera", "2023-10-15T02:00:00Z", MA, OP,
   "Writing Tamsin's death, finally crying for Baba Vera",
   "She wrote until 2 a.m. and cried for Baba Vera the way she couldn't in 2021. 'The book let "
   "me go to the funeral.'",
   ["p_author_self", "p_grandma", "p_tamsin", "n_manuscript"],
   "sadness .9 trust .5", 0.1, "repair",
   parents=["tamsin_death"])

ev("draft1_done", "2023-11-18T23:50:00Z", FM, OP,
   "First draft finished: 94,300 words",
   "She typed THE END at ten to midnight, then took Biscuit out under the streetlights and told "
   "him. The first draft of The Salt Orchard exists.",
   ["p_self", "n_manuscript", "n_draft1", "n_biscuit"],
   "joy .9 surprise .3 anticipation .5", 0.9, "ship",
   parents=["words31k"], bio=bio(hrv=73, sleep=0.7, stress=0.3))

ev("coffee_dana_draft", "2023-12-02T11:00:00Z", R, OP,
   "Coffee with Dana to celebrate the draft",
   "Cardamom buns at Juniper & Grind on Nadia's day off. Dana asked, 'So who is Crane really?' "
   "and Nadia changed the subject, then changed it back.",
   ["p_self", "p_dana", "n_juniper", "p_crane"],
   "joy .7 trust .8 surprise .2", 0.7, "joy",
   parents=["draft1_done"])

ev("xmas_katya_2023", "2023-12-25T14:00:00Z", R, OP,
   "Christmas at Katya's after all",
   "Stiff at first. Erik cooked, Katya was very pregnant and tired, and the sisters washed up "
   "together without talking about anything difficult. It was enough.",
   ["p_self", "p_sister", "p_erik", "p_mother"],
   "trust .4 joy .4 sadness .3", 0.4, "repair",
   parents=["xmas_decline"])

# ---------------------------------------------------------------- 2024: Sam, breakthrough
ev("zoya_born", "2024-01-13T08:00:00Z", R, OP,
   "Niece Zoya is born",
   "Zoya arrived at dawn. Nadia held her in the hospital corridor and said she has Baba Vera's "
   "chin. Katya cried and said, 'I know. I saw it too.'",
   ["p_self", "p_zoya", "p_sister", "p_erik", "p_grandma"],
   "joy .9 trust .6 sadness .3", 0.9, "joy",
   parents=["katya_pregnant"])

ev("happy_and_sad", "2024-01-27T16:00:00Z", R, SM,
   "\"I can be happy for Katya and sad for me at once\"",
   "Nadia said both feelings are allowed in the same afternoon, and that neither cancels the "
   "other. It used to feel like betrayal.",
   ["p_self", "p_sister", "p_zoya"],
   "joy .4 sadness .4 trust .5", 0.3, "repair",
   parents=["hy_left_behind"])

ev("meet_sam", "2024-02-10T10:00:00Z", R, OP,
   "Met Sam at the dog park",
   "Biscuit stole a tennis ball from a grey greyhound called Pepper. Pepper's person, Sam "
   "Adeyemi, builds furniture, has sawdust in his eyebrows and laughed at her terrible pun "
   "about 'fetching' trouble.",
   ["p_self", "p_sam", "n_biscuit"],
   "joy .7 surprise .5 anticipation .6", 0.7, "joy")

ev("first_date", "2024-02-24T18:00:00Z", R, OP,
   "First date with Sam: chips on the pier",
   "A walk along the seafront and chips on the pier in the wind. He asked questions and waited "
   "for the answers. She caught herself planning her exit and stayed.",
   ["p_self", "p_sam", "n_port_alder"],
   "joy .7 anticipation .7 fear .4", 0.7, "",
   parents=["meet_sam"])

ev("hy_testing_sam", "2024-03-09T20:00:00Z", R, HY,
   "She may be testing whether Sam will leave",
   "Nadia cancelled two plans in a row, both with thin reasons. Possibly the 'leave first' "
   "script checking whether he will go if pushed.",
   ["p_self", "p_sam"],
   "fear .5 shame .3", -0.3, "",
   parents=["first_date"])

ev("told_sam_papa", "2024-03-23T21:00:00Z", R, OP,
   "Told Sam about Papa",
   "On the third date she told him about the suitcase and the radio. He didn't try to fix it. He "
   "said, 'That's a lot for a seven-year-old to carry,' and held her hand.",
   ["p_self", "p_sam", "p_father"],
   "trust .8 fear .4 sadness .5", 0.4, "repair",
   parents=["hy_testing_sam"])

ev("cut_prologue", "2024-04-13T06:00:00Z", FM, OP,
   "Second draft begins: the prologue is cut",
   "Thursday Ink agreed the prologue explains too much. Nadia deleted 8,000 words, felt sick, "
   "then felt free. Draft two has begun.",
   ["p_self", "n_manuscript", "n_draft2", "n_thursday_ink"],
   "sadness .3 anticipation .6 fear .2", 0.3, "")

ev("um_questions", "2024-04-27T20:00:00Z", R, UM,
   "Nadia responds better to questions than to reassurance",
   "'It'll be fine' makes her feel unheard; 'what's the scariest part?' helps her think. She "
   "prefers to be asked before being given advice.",
   ["p_self"],
   "trust .5", 0.2, "")

ev("not_radio", "2024-05-18T16:30:00Z", R, AX,
   "\"It was never the radio\"",
   "In session Nadia understood, in her body and not just her head, what a seven-year-old "
   "couldn't: Papa left because of Papa. She said aloud 'I wasn't the reason' and sobbed for "
   "ten minutes. Helen called it the breakthrough of their four years of work.",
   ["p_self", "p_therapist", "p_father"],
   "sadness .7 trust .8 joy .4 shame .2", 0.4, "repair",
   parents=["little_nadia"], flag=1, floor=0.85)

ev("official_sam", "2024-06-01T19:00:00Z", R, OP,
   "Sam calls her his partner",
   "At his sister's barbecue Sam introduced her as 'my partner, Nadia' without looking at her "
   "to check. She noticed she didn't flinch.",
   ["p_self", "p_sam"],
   "joy .8 trust .7 fear .2", 0.8, "joy",
   parents=["told_sam_papa"])

ev("hm_training", "2024-06-22T07:00:00Z", R, OP,
   "Half-marathon training begins",
   "A sixteen-week plan stuck to the fridge. Long runs on Sundays, Biscuit on the short ones.",
   ["p_self", "n_running", "n_biscuit", "n_trail"],
   "anticipation .7 joy .5", 0.6, "",
   bio=bio(hrv=75, sleep=0.78, stress=0.2, workout=True))

ev("money_crisis", "2024-07-06T22:00:00Z", R, OP,
   "Car repair and a rent rise in the same week",
   "The car failed its inspection (£640) and the Larch Lane rent went up nine per cent. She "
   "stopped sleeping properly and ate toast for dinner four nights running. The money worries "
   "were back in full.",
   ["p_self", "n_money", "n_larch"],
   "fear .8 shame .5", -0.7, "burden",
   bio=bio(hrv=53, sleep=0.35, stress=0.8, hr="elevated_3d"))

ev("hid_money", "2024-07-07T20:00:00Z", R, OP,
   "Hid the money problem from Sam",
   "Sam asked why she looked tired; she said the café was busy. She felt the old shame of being "
   "a problem to someone.",
   ["p_self", "p_sam", "n_money"],
   "shame .7 fear .4", -0.6, "wound",
   parents=["money_crisis"])

ev("told_sam_money", "2024-07-20T20:30:00Z", R, OP,
   "Told Sam about the money",
   "She told him everything, spreadsheet included. He offered a loan; she said no, then yes to "
   "help with the car only, to be paid back in shifts of furniture sanding. They laughed.",
   ["p_self", "p_sam", "n_money"],
   "trust .7 shame .4 joy .3", 0.4, "repair",
   parents=["hid_money"])

ev("not_a_burden", "2024-08-03T16:00:00Z", R, SM,
   "\"Needing help doesn't make me too much\"",
   "A new self-belief, tested on Sam and on Dana. It holds more often than not.",
   ["p_self", "p_sam", "p_dana"],
   "trust .6 anticipation .3", 0.4, "repair",
   parents=["told_sam_money"])

ev("wren_signs", "2024-08-17T06:00:00Z", FC, OP,
   "Wren signs Crane's ledger",
   "Wren signs her half of the orchard over to Crane and takes the morning coach to the city. "
   "She leaves a note that Ilse burns without reading.",
   ["p_wren", "p_crane", "n_ledger", "p_ilse", "n_orchard"],
   "sadness .7 anger .6 surprise .5", -0.7, "",
   parents=["wren_sell"])

ev("wren_is_katya", "2024-08-31T06:30:00Z", MA, HY,
   "Maybe Wren is Katya, and I'm being unfair to her",
   "Nadia wondered whether she wrote Wren as a traitor because of the Christmas fight, and "
   "whether a reader would see a frightened younger sister instead.",
   ["p_author_self", "p_wren", "p_sister"],
   "guilt .6 sadness .3", -0.2, "",
   parents=["wren_signs"])

ev("beta", "2024-09-14T15:00:00Z", FM, OP,
   "Beta readers on draft two",
   "Three beta readers: the middle sags, Cal is lovely, Crane is 'too evil – he needs a wound'. "
   "Nadia read the notes twice, slept on them and agreed with most.",
   ["p_self", "n_manuscript", "n_draft2", "p_crane"],
   "anticipation .4 shame .3 trust .4", 0.1, "")

ev("crane_wound", "2024-09-28T06:00:00Z", FC, OP,
   "Crane's wound",
   "The villain gets a past: Crane's own father drowned owing money, and the ledger was his "
   "father's before it was his. He collects debts because nobody forgave his.",
   ["p_crane", "n_ledger", "n_greywick"],
   "sadness .5 surprise .6 disgust .2", -0.3, "",
   parents=["beta"])

ev("dana_job", "2024-10-12T11:00:00Z", R, OP,
   "Coffee with Dana after her layoff",
   "Dana was laid off from the architecture firm. Nadia bought the coffees this time and "
   "listened for two hours at the corner table of Juniper & Grind.",
   ["p_self", "p_dana", "n_juniper"],
   "trust .8 sadness .4", 0.2, "care")

ev("katya_call", "2024-10-26T23:00:00Z", R, OP,
   "Katya calls crying at 11 p.m.",
   "Zoya had a high fever, Erik was away, Katya was frightened. Nadia drove over in her pyjamas "
   "and they sat up until the fever broke.",
   ["p_self", "p_sister", "p_zoya", "p_erik"],
   "fear .5 trust .7", -0.1, "")

ev("katya_repair1", "2024-11-09T20:00:00Z", R, OP,
   "Talk with Katya on the kitchen floor",
   "A real conversation, finally. Katya: 'I said you make everything about Papa because I never "
   "got to be sad about him. You took all the sad.' Both sisters cried and then laughed at "
   "themselves.",
   ["p_self", "p_sister", "p_father"],
   "trust .9 sadness .6 joy .4", 0.6, "repair",
   parents=["katya_call"])

ev("um_katya_safe", "2024-11-23T20:00:00Z", R, UM,
   "Katya is now a safe person for Nadia",
   "Since the kitchen-floor talk Nadia calls Katya when she is low, not only when something "
   "needs organising. Mentioning Katya no longer tenses her.",
   ["p_self", "p_sister"],
   "trust .6", 0.4, "",
   parents=["katya_repair1"])

ev("ny_call", "2024-12-28T19:00:00Z", R, OP,
   "Новогодний звонок: мама поёт бабушкину песню",
   "Видеозвонок: мама, Катя, маленькая Зоя и Надя. Мама спела бабушкину песню про рябину, "
   "и Зоя пыталась подпевать.",
   ["p_self", "p_mother", "p_sister", "p_zoya", "p_grandma", "n_russian"],
   "joy .7 sadness .4 trust .6", 0.6, "tender")

# ---------------------------------------------------------------- 2025: Papa's death, moving in
ev("draft2_done", "2025-01-18T22:00:00Z", FM, OP,
   "Second draft finished: 101,000 words",
   "Draft two is done, with a new middle and a villain who has a wound. She ran ten kilometres "
   "the next morning to celebrate.",
   ["p_self", "n_manuscript", "n_draft2"],
   "joy .8 anticipation .5", 0.8, "milestone",
   parents=["cut_prologue"], bio=bio(hrv=72, sleep=0.7, stress=0.3, workout=True))

ev("papa_died_msg", "2025-02-07T06:20:00Z", R, OP,
   "Мама: папа умер",
   "Сообщение от мамы: «Надя, мне позвонили из Екатеринбурга. Павел умер. Сердце. Прости, что "
   "пишу так рано». Надя прочитала его пять раз и не почувствовала ничего.",
   ["p_self", "p_mother", "p_father", "n_russian", "n_boundary_papa"],
   "surprise .9 sadness .6 fear .4", -0.7, "wound")

ev("papa_died", "2025-02-08T10:00:00Z", R, AX,
   "Papa died",
   "Pavel Volkov died of a heart attack at sixty-one. Nadia had spoken to him once as an adult, "
   "a stiff phone call at nineteen. She is grieving a father she lost twenty-six years ago and "
   "the chance that he might one day have explained. Anger, numbness and grief take turns.",
   ["p_self", "p_father", "p_mother", "p_sister", "n_boundary_papa"],
   "sadness .8 anger .5 guilt .4 shame .3", -0.85, "grief",
   parents=["papa_died_msg"], flag=1, floor=0.9,
   bio=bio(hrv=46, sleep=0.25, stress=0.85, hr="elevated_overnight", trend="declining_3d"))

ev("sisters_papa", "2025-02-10T21:00:00Z", R, OP,
   "Катя и Надя говорят о папе",
   "Сёстры говорили по-русски два часа. Катя сказала: «Мы обе его не знали. Мы знали только "
   "дыру на его месте». Надя впервые почувствовала, что горюет не одна.",
   ["p_self", "p_sister", "p_father", "n_russian"],
   "sadness .7 trust .7", 0.1, "repair",
   parents=["papa_died"])

ev("no_funeral", "2025-02-22T20:00:00Z", R, OP,
   "Decided not to go to Papa's funeral",
   "She decided not to fly to Yekaterinburg. Relief, then guilt, then anger at feeling guilty "
   "for a man who never came to anything of hers.",
   ["p_self", "p_father", "n_boundary_papa"],
   "guilt .6 sadness .5 anger .4", -0.5, "",
   parents=["papa_died"])

ev("ambiguous_grief", "2025-03-08T16:00:00Z", R, OP,
   "Helen: grief for a father who was absent",
   "Helen called it ambiguous grief: mourning both the man and the father he never was. Nadia "
   "said the word 'both' helped more than anything else that month.",
   ["p_self", "p_therapist", "p_father"],
   "trust .7 sadness .6", 0.1, "")

ev("um_boundary", "2025-03-22T20:00:00Z", R, UM,
   "Don't probe the details of Papa's death",
   "Nadia asked not to be asked about the funeral, the cause of death or his other family unless "
   "she brings them up. She is willing to talk about Papa; she wants to choose when.",
   ["p_self", "p_father", "n_boundary_papa"],
   "trust .5 fear .3", 0.0, "boundary", floor=0.6)

ev("suitcase", "2025-04-05T17:00:00Z", R, OP,
   "The blue suitcase arrives",
   "A parcel from Yekaterinburg: Papa's things, sent by his widow. Inside, the same blue "
   "suitcase from 1999, and in it a folder of Nadia's and Katya's childhood drawings, kept for "
   "twenty-six years.",
   ["p_self", "p_father", "p_sister"],
   "surprise .9 sadness .8 anger .3", -0.6, "wound")

ev("hy_drawings", "2025-04-06T20:00:00Z", R, HY,
   "Maybe he kept the drawings because he loved them",
   "A possibility Nadia is not ready to believe and cannot dismiss: he kept the drawings because "
   "he loved them and did not know how to be a father.",
   ["p_self", "p_father"],
   "sadness .6 surprise .4 trust .3", -0.1, "",
   parents=["suitcase"])

ev("tobias_stays", "2025-04-19T06:00:00Z", MA, SM,
   "Tobias will not come back",
   "Nadia decided Tobias stays lost at sea. No rescue, no last-chapter return. 'I've been "
   "writing a book where he comes home. He doesn't. The book is about what Ilse grows anyway.'",
   ["p_author_self", "p_tobias", "p_father", "n_manuscript"],
   "sadness .6 trust .4 anticipation .3", 0.1, "",
   parents=["suitcase"])

ev("rain_run", "2025-05-03T08:00:00Z", R, OP,
   "Run in the rain, Sam cycling alongside",
   "Fourteen kilometres in steady rain with Sam on his bike carrying water and bad jokes.",
   ["p_self", "p_sam", "n_running"],
   "joy .7 trust .6", 0.7, "",
   bio=bio(hrv=70, sleep=0.72, stress=0.3, workout=True))

ev("dana_wedding", "2025-05-17T16:00:00Z", R, OP,
   "Dana's wedding: Nadia gives the speech",
   "Dana married Leah in a barn full of fairy lights. Nadia's speech was about the soup and the "
   "toothbrush. Half the room cried; Dana cried most.",
   ["p_self", "p_dana", "p_sam"],
   "joy .9 trust .8", 0.9, "joy",
   parents=["dana_engaged"])

ev("hy_ready", "2025-06-07T20:00:00Z", R, HY,
   "Nadia may be ready to live with someone again",
   "She has started leaving things at Sam's: a toothbrush, running shoes, a notebook. Her "
   "actions may be ahead of her words.",
   ["p_self", "p_sam"],
   "anticipation .5 fear .3 trust .4", 0.3, "")

ev("query_letter", "2025-07-05T20:00:00Z", FM, OP,
   "Query letter workshop",
   "Thursday Ink took her query letter apart, kindly. 'Too much weather, not enough Ilse.' "
   "Version nine is one page.",
   ["p_self", "n_query", "n_thursday_ink", "n_manuscript"],
   "anticipation .5 shame .3", 0.2, "")

ev("shift_lead", "2025-07-19T14:00:00Z", R, OP,
   "Promoted to shift lead at the café",
   "Priya made her shift lead with a small raise and keys to the shop. It meant more than the "
   "Brightline promotion did, and cost less.",
   ["p_self", "p_priya", "n_juniper", "n_money"],
   "joy .6 trust .6", 0.6, "milestone")

ev("movein_ask", "2025-08-02T22:00:00Z", R, OP,
   "Sam asks her to move in",
   "Sam asked if she and Biscuit would move into the Quarry Road house. She said 'let me think' "
   "and then didn't sleep at all.",
   ["p_self", "p_sam", "n_quarry", "n_biscuit"],
   "fear .6 anticipation .6 joy .4", 0.2, "",
   parents=["hy_ready"], bio=bio(hrv=58, sleep=0.4, stress=0.6))

ev("want_and_scared", "2025-08-16T16:00:00Z", R, SM,
   "\"I can want something and be scared of it\"",
   "Nadia realised that fear is not a verdict. She wants to live with Sam and she is scared; "
   "both are true and the fear doesn't get a veto.",
   ["p_self", "p_sam", "p_therapist"],
   "fear .4 trust .5 anticipation .5", 0.4, "repair",
   parents=["movein_ask"])

ev("move_sam", "2025-09-06T12:00:00Z", R, OP,
   "Moved in with Sam on Quarry Road",
   "Boxes, Biscuit and Pepper sniffing each other's beds, Sam's workshop smelling of pine. She "
   "unpacked the chipped blue mug first.",
   ["p_self", "p_sam", "n_quarry", "n_biscuit", "n_larch"],
   "joy .7 trust .7 fear .3", 0.7, "milestone",
   parents=["want_and_scared"], flag=1, floor=0.4, archivable=0)

ev("dishes_fight", "2025-09-20T21:00:00Z", R, OP,
   "First argument in the shared house",
   "About dishes, officially. Really about having no room of her own. She went for a walk "
   "mid-sentence and felt the old urge to keep walking.",
   ["p_self", "p_sam", "n_quarry"],
   "anger .5 fear .4 sadness .3", -0.4, "conflict")

ev("writing_nook", "2025-09-21T11:00:00Z", R, OP,
   "Sam builds a writing nook under the stairs",
   "She came back and said what it was really about. The next day Sam built a desk and a shelf "
   "under the stairs and hung a little brass lamp. 'Your room.'",
   ["p_self", "p_sam", "n_quarry", "n_manuscript"],
   "trust .8 joy .7 surprise .4", 0.8, "repair",
   parents=["dishes_fight"])

ev("half_marathon", "2025-10-12T11:30:00Z", R, OP,
   "Port Alder Half Marathon: 2:04:51",
   "Sam, Dana and Biscuit at the finish line. She sprinted the last two hundred metres and cried "
   "at the sight of them. From couch-to-5k to 21 kilometres.",
   ["p_self", "n_running", "p_sam", "p_dana", "n_biscuit", "n_port_alder"],
   "joy 1.0 trust .7 surprise .3", 0.95, "milestone",
   parents=["first10k"], bio=bio(hrv=79, sleep=0.8, stress=0.2, trend="rising", workout=True))

ev("queries", "2025-10-25T20:00:00Z", FM, OP,
   "Third draft done, twelve queries sent",
   "Draft three finished and twelve agent queries sent in one evening from the writing nook. "
   "Then she closed the laptop and hid it in a drawer.",
   ["p_self", "n_manuscript", "n_draft3", "n_query"],
   "anticipation .8 fear .5", 0.4, "ship",
   parents=["query_letter"])

ev("rejections", "2025-11-15T21:00:00Z", R, OP,
   "Five rejections in a week",
   "Five form rejections in six days. 'Not right for my list.' She knows it's normal; it still "
   "felt like a suitcase being packed.",
   ["p_self", "n_manuscript", "n_query"],
   "shame .6 sadness .5", -0.6, "wound",
   parents=["queries"])

ev("impostor2", "2025-11-29T06:30:00Z", MA, OP,
   "Arguing back with the impostor voice",
   "The voice said 'you're a barista with a hobby'. She wrote the sentence in her morning pages "
   "and answered it in writing: 'I am a barista who finished three drafts of a novel.'",
   ["p_author_self", "n_impostor", "n_morning_pages"],
   "shame .4 anger .4 trust .4", 0.2, "repair",
   parents=["rejections"])

ev("pelmeni", "2025-12-13T16:00:00Z", R, OP,
   "Лепили пельмени у мамы",
   "Катя, Надя, мама и Зоя лепили пельмени на маминой кухне, как у бабушки. Зоя ела фарш "
   "ложкой. Надя подумала, что это, наверное, и есть семья.",
   ["p_self", "p_sister", "p_mother", "p_zoya", "n_russian"],
   "joy .8 trust .8 sadness .2", 0.8, "repair",
   parents=["katya_repair1"])

ev("um_december", "2025-12-27T20:00:00Z", R, UM,
   "Nadia's energy dips every December",
   "The burnout, Baba Vera's stroke and the long dark all cluster around winter. Her December "
   "entries are shorter and harsher. Gentle check-ins help more than plans.",
   ["p_self", "n_burnout", "p_grandma"],
   "sadness .4 fear .2", -0.2, "")

# ---------------------------------------------------------------- 2026: agent, care, recent
ev("full_request", "2026-01-17T14:00:00Z", R, OP,
   "Agent requests the full manuscript",
   "Leonie Hart, an agent she had queried in October, asked for the full manuscript. Nadia read "
   "the email aloud to Biscuit three times.",
   ["p_self", "p_leonie", "n_manuscript"],
   "surprise .8 joy .8 anticipation .9", 0.85, "")

ev("hy_afraid_success", "2026-01-31T20:00:00Z", R, HY,
   "Maybe she fears success because success means being seen",
   "She hasn't told anyone but Sam about the full request. A tentative reading: being read "
   "means being seen, and being seen once meant being left.",
   ["p_self", "p_author_self"],
   "fear .5 shame .3", -0.2, "",
   parents=["full_request"])

ev("bookend", "2026-02-14T20:00:00Z", R, OP,
   "Sam's hand-carved bookend",
   "For Valentine's Day Sam carved a bookend shaped like an apple tree 'for the book that will "
   "stand next to it'.",
   ["p_self", "p_sam", "n_manuscript"],
   "joy .7 trust .8", 0.8, "joy")

ev("cafe_sale", "2026-02-28T18:00:00Z", R, OP,
   "Priya is selling the café",
   "Priya told the staff she is selling Juniper & Grind to look after her father. Nobody knows "
   "if the new owners will keep them on.",
   ["p_self", "p_priya", "n_juniper", "n_money"],
   "fear .6 sadness .5", -0.6, "burden",
   bio=bio(hrv=56, sleep=0.4, stress=0.7))

ev("ledger_burns", "2026-03-14T06:00:00Z", FC, OP,
   "Ilse burns the ledger",
   "The climax: Ilse burns Crane's ledger on the altar of the Drowned Chapel as the tide comes "
   "in. Crane watches from the door and does not stop her.",
   ["p_ilse", "p_crane", "n_ledger", "n_chapel"],
   "anger .6 joy .5 surprise .5", 0.3, "",
   parents=["crane_wound"])

ev("crane_sea", "2026-03-28T06:00:00Z", FC, OP,
   "Crane walks into the sea",
   "Crane walks out along the causeway into the rising water. Ilse shouts his name once. The "
   "book never says whether he drowned.",
   ["p_crane", "p_ilse", "n_greywick"],
   "sadness .6 surprise .5 fear .3", -0.3, "",
   parents=["ledger_burns"])

ev("agent", "2026-04-11T15:00:00Z", R, OP,
   "Leonie Hart offers representation",
   "A video call: Leonie loves Ilse, wants to represent The Salt Orchard and has 'notes, but "
   "good ones'. Nadia said yes, hung up and screamed into a tea towel.",
   ["p_self", "p_leonie", "n_manuscript"],
   "joy 1.0 surprise .7 fear .3", 0.95, "milestone",
   parents=["full_request"], flag=1, floor=0.4, archivable=0)

ev("im_a_writer", "2026-04-12T10:00:00Z", MA, SM,
   "\"I'm a writer\", without the \"sort of\"",
   "A customer asked what she does besides coffee. She said 'I'm a writer' and did not add "
   "'sort of' or 'trying to be'.",
   ["p_author_self", "n_impostor", "n_juniper"],
   "joy .7 shame .2", 0.7, "milestone",
   parents=["agent"])

ev("new_owners", "2026-04-25T17:00:00Z", R, OP,
   "New café owners keep her on, with fewer hours",
   "The new owners kept the staff but cut her to three mornings. Priya's goodbye hug went on "
   "for a long time.",
   ["p_self", "p_priya", "n_juniper", "n_money"],
   "sadness .5 fear .4 trust .3", -0.3, "",
   parents=["cafe_sale"])

ev("mama_reads", "2026-05-09T19:00:00Z", R, OP,
   "Мама прочитала первые главы",
   "Надя перевела маме первые три главы. Мама написала: «Тамсин — это бабушка. Я плакала. "
   "Ты пишешь, как она говорила». Надя сохранила сообщение.",
   ["p_self", "p_mother", "p_grandma", "p_tamsin", "n_manuscript", "n_russian"],
   "joy .7 trust .8 sadness .5", 0.7, "repair")

ev("edit_letter", "2026-05-23T16:00:00Z", FM, OP,
   "Leonie's edit letter",
   "Eleven pages: make Wren's choice sympathetic, let Crane's wound show earlier, trim Part Two "
   "by 10,000 words. Nadia felt seen and terrified.",
   ["p_self", "p_leonie", "n_manuscript", "n_draft3", "p_wren", "p_crane"],
   "anticipation .6 fear .4 trust .5", 0.3, "")

ev("hy_wren_forgive", "2026-06-06T20:00:00Z", MA, HY,
   "Making Wren sympathetic might mirror forgiving Katya",
   "Nadia noticed that rewriting Wren as someone with reasons feels like the kitchen-floor talk "
   "with Katya, done on paper.",
   ["p_author_self", "p_wren", "p_sister"],
   "trust .5 sadness .3", 0.3, "",
   parents=["edit_letter"])

ev("biscuit_hurt", "2026-06-20T19:00:00Z", R, OP,
   "Biscuit tears a ligament",
   "Her dog Biscuit came back from the trail limping. The vet found a torn cruciate ligament: "
   "surgery, £1,900, eight weeks of crate rest. Nadia held him in the car park and shook.",
   ["p_self", "n_biscuit", "n_money", "n_trail"],
   "fear .8 sadness .6", -0.7, "burden",
   bio=bio(hrv=52, sleep=0.35, stress=0.8, hr="elevated_3d"))

ev("vet_bill", "2026-06-21T12:00:00Z", R, OP,
   "Sam and Katya split the vet bill",
   "Without being asked, Sam and Katya split the surgery bill between them. Nadia's first "
   "instinct was to refuse; she let them help.",
   ["p_self", "p_sam", "p_sister", "n_biscuit", "n_money"],
   "trust .9 guilt .3 joy .4", 0.6, "repair",
   parents=["biscuit_hurt"])

ev("biscuit_home", "2026-07-11T17:00:00Z", R, OP,
   "Biscuit home after surgery",
   "Shaved leg, plastic cone, offended expression. Nadia slept on the living-room floor next to "
   "his crate for three nights.",
   ["p_self", "n_biscuit", "n_quarry"],
   "trust .6 sadness .4 joy .3", 0.2, "",
   parents=["biscuit_hurt"])

ev("wren_letter", "2026-07-25T06:00:00Z", FC, OP,
   "Wren's letter",
   "The rewrite: the note Ilse burned unread is found in Wren's copy. Wren sold her half to pay "
   "their father's debt so Crane's interest would never reach Ilse. She left to protect her.",
   ["p_wren", "p_ilse", "p_crane", "n_ledger", "n_letters"],
   "sadness .6 trust .6 surprise .5", 0.2, "",
   parents=["wren_signs"])

ev("overwork2", "2026-08-08T23:30:00Z", R, OP,
   "Revisions, shifts and the vet: five hours' sleep",
   "Edits until midnight, café at six, vet appointments between. Sam found her asleep at the "
   "writing nook. 'It's just this week,' she said, for the third week.",
   ["p_self", "n_manuscript", "n_juniper", "n_burnout", "p_sam"],
   "fear .5 sadness .4 shame .3", -0.6, "burden",
   bio=bio(hrv=54, sleep=0.38, stress=0.75, trend="declining_3d"))

ev("um_warning", "2026-08-15T20:00:00Z", R, UM,
   "Early warning: \"just this week\"",
   "When Nadia says 'just this week' about overworking, it is the 2021 burnout pattern starting "
   "again. Worth naming gently and early.",
   ["p_self", "n_burnout"],
   "fear .3", -0.2, "",
   parents=["overwork2"])

ev("extension", "2026-08-22T16:00:00Z", R, OP,
   "Asked Leonie for more time",
   "After talking it through with Helen, Nadia asked Leonie for a three-week extension: the "
   "first time she has ever asked for more time. Leonie replied in four minutes: 'Of course.'",
   ["p_self", "p_leonie", "p_therapist", "n_manuscript"],
   "trust .7 surprise .4 joy .4", 0.6, "repair",
   parents=["overwork2"])

ev("off_lead", "2026-08-29T08:00:00Z", R, OP,
   "Biscuit's first off-lead walk since surgery",
   "Biscuit ran a wobbly circle on the grass at Alder Point and came straight back. Nadia cried "
   "with relief and then jogged the rest of the loop.",
   ["p_self", "n_biscuit", "n_trail", "n_running"],
   "joy .9 trust .6", 0.9, "milestone",
   parents=["biscuit_home"], bio=bio(hrv=74, sleep=0.75, stress=0.25, workout=True))

ev("revision_sent", "2026-09-05T17:00:00Z", FM, OP,
   "Revised manuscript sent to Leonie",
   "The revision is done: 98,000 words, Wren with reasons, Crane with a wound shown in chapter "
   "four. She pressed send from the writing nook and took Biscuit to the sea.",
   ["p_self", "n_manuscript", "n_draft3", "p_leonie"],
   "joy .8 anticipation .7", 0.8, "ship",
   parents=["edit_letter"])

ev("mama_fall", "2026-09-12T09:00:00Z", R, OP,
   "Mama fell on the stairs",
   "Mama slipped on the stairs of her building and broke her wrist. Katya got to the hospital "
   "first; Nadia arrived forty minutes later and felt she had failed.",
   ["p_self", "p_mother", "p_sister"],
   "fear .8 guilt .4", -0.6, "",
   bio=bio(hrv=55, sleep=0.4, stress=0.7, hr="elevated_3d"))

ev("mama_cope", "2026-09-13T20:00:00Z", R, OP,
   "Мама: не приезжайте, я справлюсь",
   "Мама с гипсом: «Не приезжайте каждый день, я справлюсь. Я не инвалид». Надя рассердилась "
   "и тут же почувствовала вину.",
   ["p_self", "p_mother", "n_russian"],
   "anger .4 sadness .5 guilt .4 trust .3", -0.4, "",
   parents=["mama_fall"])

ev("katya_fight2", "2026-09-21T21:00:00Z", R, OP,
   "Argument with Katya about Mama's care",
   "Katya suggested Mama move to assisted living; Nadia accused her of 'getting rid of her'. "
   "Katya said, 'You're doing it again: making me the one who leaves.' Nadia hung up on her "
   "sister for the first time since 2020.",
   ["p_self", "p_sister", "p_mother"],
   "anger .8 sadness .6 guilt .5 shame .4", -0.75, "conflict",
   bio=bio(hrv=53, sleep=0.35, stress=0.75, hr="elevated_overnight"))

ev("coffee_dana_katya", "2026-09-23T10:30:00Z", R, OP,
   "Coffee with Dana after the fight with Katya",
   "At Juniper & Grind, over cardamom buns. Dana listened and then said: 'You two fight about "
   "your mum because you never got to fight about your dad.' Nadia laughed, then went very quiet.",
   ["p_self", "p_dana", "n_juniper", "p_sister", "p_father"],
   "trust .8 sadness .4 surprise .4", 0.3, "care",
   parents=["katya_fight2"])

ev("hy_loyal_daughter", "2026-09-27T20:00:00Z", R, HY,
   "The fights may be about who gets to be the loyal daughter",
   "A possibility: both sisters are afraid of being the one who leaves, so each accuses the "
   "other of it. Mama's care is where Papa's absence is still being argued.",
   ["p_self", "p_sister", "p_mother", "p_father"],
   "sadness .4 guilt .3", -0.2, "",
   parents=["katya_fight2"])

ev("katya_repair2", "2026-10-03T18:00:00Z", R, OP,
   "Made up with Katya: a shared care plan",
   "Nadia called first and apologised for the 'getting rid of her' line. They made a rota: "
   "Katya Tuesdays and Fridays, Nadia Wednesdays and Sundays, and a proper conversation with "
   "Mama about options, in Russian.",
   ["p_self", "p_sister", "p_mother"],
   "trust .8 joy .5 guilt .3", 0.7, "repair",
   parents=["katya_fight2", "coffee_dana_katya"])

ev("autumn10k", "2026-10-10T10:00:00Z", R, OP,
   "Autumn 10k personal best: 54:12",
   "With the Harriers on a cold bright morning. Four minutes faster than her first 10k. Biscuit, "
   "cleared for short walks, watched from the finish with Sam.",
   ["p_self", "n_running", "n_harriers", "n_biscuit", "p_sam"],
   "joy .9 trust .5", 0.9, "milestone",
   parents=["half_marathon"], bio=bio(hrv=77, sleep=0.8, stress=0.2, trend="rising", workout=True))

ev("mama_moves", "2026-10-17T19:00:00Z", R, OP,
   "Мама согласилась переехать ближе",
   "После долгого разговора мама согласилась переехать в квартиру рядом с Катей: «Хорошо, "
   "девочки. Только мои яблоки в банках едут со мной». Сёстры смеялись в трубку.",
   ["p_self", "p_mother", "p_sister", "n_russian"],
   "joy .6 trust .7 sadness .3", 0.6, "repair",
   parents=["katya_repair2"])

ev("editors", "2026-10-22T15:00:00Z", R, OP,
   "Two editors interested in The Salt Orchard",
   "Leonie called with news: two editors have read the book and want to talk. Nothing is "
   "decided. Nadia walked around the block three times before she could go back inside.",
   ["p_self", "p_leonie", "n_manuscript"],
   "anticipation .9 fear .5 joy .6", 0.7, "",
   parents=["revision_sent"])

ev("acknowledgements", "2026-10-24T06:30:00Z", MA, OP,
   "Drafting the acknowledgements in her head",
   "On a morning walk she caught herself writing the acknowledgements: Baba Vera first, then "
   "Mama, Katya, Dana, Sam, Helen, Biscuit. She didn't stop herself.",
   ["p_author_self", "p_grandma", "n_manuscript", "n_morning_pages"],
   "joy .6 anticipation .6 sadness .3", 0.6, "")

ev("last_letter", "2026-10-26T06:00:00Z", FC, OP,
   "Ilse's last unsent letter",
   "The final chapter's letter: 'I stopped keeping the lamp lit for you. I keep it lit for the "
   "ships that are still coming.' Ilse sends this one: she drops it in the sea.",
   ["p_ilse", "p_tobias", "n_letters", "n_orchard"],
   "sadness .5 trust .6 joy .4", 0.4, "",
   parents=["first_letter"])

ev("marriage_talk", "2026-10-29T21:00:00Z", R, OP,
   "Sam talks about marriage, and she doesn't run",
   "In the kitchen, gently, Sam asked whether she could imagine marrying again. Her chest "
   "tightened; she stayed at the table and said, 'Ask me properly in the spring.'",
   ["p_self", "p_sam", "n_quarry"],
   "joy .7 fear .4 trust .8 surprise .4", 0.6, "")

ev("hy_tom_not_sam", "2026-10-30T09:00:00Z", R, HY,
   "Her fear of marriage may be about Tom, not Sam",
   "A tentative reading of her tight chest: the fear belongs to the separation and to Papa's "
   "suitcase, not to anything Sam has done.",
   ["p_self", "p_sam", "p_tom"],
   "fear .4 trust .4", 0.0, "",
   parents=["marriage_talk"])

ev("suitcase_dream", "2026-10-30T07:00:00Z", R, OP,
   "Dream of the blue suitcase",
   "She woke at 3 a.m. from a dream of packing the blue suitcase herself and couldn't get back to "
   "sleep. Four hours in total.",
   ["p_self", "p_father"],
   "fear .6 sadness .6", -0.5, "wound",
   parents=["suitcase"],
   bio=bio(hrv=55, sleep=0.3, stress=0.65, hr="elevated_overnight"))

ev("halloween", "2026-10-31T16:00:00Z", R, OP,
   "Halloween at the café: Biscuit the pumpkin",
   "Biscuit, fully healed, came to the café in a pumpkin costume and was photographed by every "
   "customer. Nadia's morning shift went by in a blur of laughing.",
   ["p_self", "n_biscuit", "n_juniper"],
   "joy .9 surprise .3", 0.9, "joy")


# ---------------------------------------------------------------- reflections across the years
# Self-model beliefs, the companion's model of Nadia, and tentative hypotheses. Kept together
# here for review; the builder orders every event by time.
ev("hy_insomnia", "2020-08-01T09:00:00Z", R, HY,
   "Her insomnia may track what goes unsaid",
   "The worst nights this summer followed days with an unspoken disagreement, like the one with "
   "Tom about children. Sleep may be where the unsaid things go.",
   ["p_self", "p_tom"],
   "fear .3 sadness .3", -0.2, "",
   parents=["kids_argument"])

ev("hy_ilse_braver", "2021-08-14T06:30:00Z", MA, HY,
   "Maybe Ilse is braver so Nadia can practise",
   "Ilse says no to Crane at the door; Nadia has never said no to Greg. Perhaps the character "
   "is a rehearsal space for a courage Nadia is still growing.",
   ["p_author_self", "p_ilse", "p_crane", "p_greg"],
   "anticipation .4 shame .2", 0.2, "",
   parents=["crane_intro"])

ev("um_russian", "2021-12-20T20:00:00Z", R, UM,
   "Nadia switches to Russian when something moves her",
   "Her most tender and most painful entries are in Russian: Baba Vera, Mama's letters, Papa. "
   "A switch of language is a sign that something matters a great deal.",
   ["p_self", "n_russian", "p_mother", "p_grandma"],
   "trust .4 sadness .3", 0.1, "",
   parents=["mama_letter_rest"])

ev("hy_mama_nineties", "2022-02-19T21:00:00Z", R, HY,
   "The money panic may echo Mama's nineties",
   "Nadia's spreadsheet nights look like Mama's kitchen-table sums after Papa left. The fear "
   "may be older than her own bank balance.",
   ["p_self", "p_mother", "n_money"],
   "fear .4 sadness .3", -0.3, "",
   parents=["money1"])

ev("rest_not_reward", "2022-03-26T16:00:00Z", R, SM,
   "\"Rest is not a reward I have to earn\"",
   "A belief she is trying on after the first month of café shifts. She notices she still "
   "apologises for sitting down.",
   ["p_self", "p_therapist", "n_burnout"],
   "trust .4 shame .3", 0.2, "repair",
   parents=["not_job_title"])

ev("um_humour", "2022-04-16T20:00:00Z", R, UM,
   "Humour is Nadia's first shield",
   "In the week after the separation she made jokes about the coffee machine custody. A joke "
   "in a hard moment usually means 'don't come closer yet', not 'I'm fine'.",
   ["p_self", "p_tom"],
   "sadness .4 joy .2", 0.0, "")

ev("um_sleep_selftalk", "2022-08-27T20:00:00Z", R, UM,
   "Bad-sleep weeks predict harsh self-talk",
   "When her watch shows low sleep and falling HRV for several days, her words about herself get "
   "harsher within a day or two. Body first, story second.",
   ["p_self", "n_money", "n_burnout"],
   "fear .3 shame .3", -0.2, "",
   parents=["dental_bill"])

ev("hy_tom_lonely", "2022-11-05T20:00:00Z", R, HY,
   "Tom's loneliness may have been real, not an accusation",
   "Months later Nadia can hold the idea that Tom was describing his own loneliness, not "
   "passing a verdict on her.",
   ["p_self", "p_tom"],
   "sadness .4 guilt .3 trust .3", 0.0, "",
   parents=["hy_left_first"])

ev("hy_cafe_safety", "2023-01-28T20:00:00Z", R, HY,
   "The café job may be choosing safety over ambition",
   "She is good at the café and the café is safe. A possibility: staying small keeps her away "
   "from the kind of praise that once burned her out.",
   ["p_self", "n_juniper", "n_brightline"],
   "fear .3 anticipation .3", 0.0, "")

ev("i_run", "2023-05-20T08:00:00Z", R, SM,
   "\"I'm someone who runs\"",
   "A week after the 10k she caught herself saying 'I'm a runner' to a customer, with no "
   "'sort of'. Identity built from small repeated proofs.",
   ["p_self", "n_running"],
   "joy .6 trust .4", 0.6, "")

ev("um_undersells", "2023-09-16T20:00:00Z", R, UM,
   "Nadia undersells her achievements",
   "After the applause at Thursday Ink she described it as 'people being nice'. She adds 'sort "
   "of' and 'just' to anything she is proud of.",
   ["p_self", "n_thursday_ink"],
   "shame .3 joy .2", 0.0, "",
   parents=["ink_chapel"])

ev("i_finish", "2023-11-25T16:00:00Z", R, SM,
   "\"I finish things now\"",
   "After the first draft: the woman who left a career half-way can also finish a 94,000-word "
   "novel. She said it twice, to check it held.",
   ["p_self", "n_manuscript", "n_draft1"],
   "joy .6 trust .5 surprise .2", 0.6, "")

ev("ferry", "2024-05-04T06:00:00Z", FC, OP,
   "Ilse and Cal on the night ferry",
   "Cal rows Ilse across the bay to find out where Crane's money goes. Halfway over she tells "
   "him about the letters. He doesn't laugh.",
   ["p_ilse", "p_cal", "n_letters", "p_crane"],
   "trust .7 fear .3 anticipation .5", 0.4, "",
   parents=["cal_rook"])

ev("um_sam_steady", "2024-07-27T20:00:00Z", R, UM,
   "Sam's steadiness calms Nadia",
   "After the money conversation she described Sam as 'the first person who didn't flinch'. "
   "Mentions of Sam usually come with lower tension.",
   ["p_self", "p_sam"],
   "trust .6", 0.4, "",
   parents=["told_sam_money"])

ev("not_papas_suitcase", "2025-03-15T16:00:00Z", R, SM,
   "\"I'm Mama's daughter, not Papa's suitcase\"",
   "After deciding not to go to the funeral Nadia said her staying-away is not the same as his "
   "leaving. She chooses who she shows up for.",
   ["p_self", "p_mother", "p_father"],
   "trust .5 sadness .4 anger .2", 0.2, "repair",
   parents=["no_funeral"])

ev("take_space", "2025-09-27T16:00:00Z", R, SM,
   "\"I'm allowed to take up space\"",
   "Since the writing nook she has left her notebooks on the kitchen table and not tidied them "
   "away. A small thing she calls a big thing.",
   ["p_self", "n_quarry", "p_sam"],
   "joy .5 trust .5", 0.5, "repair",
   parents=["writing_nook"])

ev("um_rejection", "2025-11-22T20:00:00Z", R, UM,
   "Rejection reopens the radio story",
   "Agent rejections landed as 'I am the reason people go'. Rejection of any kind can reach the "
   "seven-year-old part; respond to that part, not to the business facts.",
   ["p_self", "n_query", "p_father"],
   "shame .4 sadness .3", -0.3, "",
   parents=["rejections"])

ev("um_february", "2026-02-07T20:00:00Z", R, UM,
   "February is heavy for Nadia",
   "Baba Vera died in February, Papa died in February, Papa left in February. She may not "
   "connect a low mood to the date; the calendar does.",
   ["p_self", "p_grandma", "p_father"],
   "sadness .5", -0.3, "",
   parents=["um_december"])

ev("hy_crane_hope", "2026-04-04T06:30:00Z", MA, HY,
   "Crane's open ending may hold a hope about Papa",
   "Nadia refused to let Crane clearly drown. Maybe the ambiguity keeps open the possibility "
   "that a man who hurt people had reasons, and might have been sorry.",
   ["p_author_self", "p_crane", "p_father"],
   "sadness .4 trust .3", 0.0, "",
   parents=["crane_sea"])

ev("hy_mama_burden", "2026-09-15T20:00:00Z", R, HY,
   "Mama's 'I'll manage' may be fear of being a burden",
   "Mama insists on coping alone the way Nadia does. The stubbornness may be the same fear, one "
   "generation up.",
   ["p_mother", "p_self"],
   "sadness .3 trust .3", 0.0, "",
   parents=["mama_cope"])

ev("orchard_blooms", "2026-10-27T06:00:00Z", FC, OP,
   "The orchard blooms in salt",
   "The last scene: spring in Greywick, and the grafted tree from Tamsin's branch flowers on "
   "salt ground. Wren comes home on the morning coach. Ilse walks down to meet her.",
   ["n_orchard", "p_ilse", "p_wren", "p_tamsin", "n_greywick"],
   "joy .7 trust .7 sadness .2", 0.7, "",
   parents=["tamsin_death"])


# =========================================================================== facts
# (entity, text, confidence, belief_class, domain)
FACTS = [
    ("p_self", "Nadia Volkova was born in 1991 and moved to Port Alder with her mother and "
     "sister at nine.", 0.95, AX, R),
    ("p_self", "Nadia is bilingual in Russian and English; she speaks Russian with her mother "
     "and sister.", 0.95, SM, R),
    ("p_self", "Nadia was a UX researcher at Brightline Health until January 2022.", 0.95, OP, R),
    ("p_self", "Nadia works morning shifts at the Juniper & Grind coffee shop; shift lead since "
     "July 2025.", 0.9, OP, R),
    ("p_self", "Nadia believed for most of her life that her father left because she broke his "
     "radio.", 0.9, AX, R),
    ("p_self", "Nadia tends to withdraw first in relationships so she cannot be left.", 0.75,
     SM, R),
    ("p_self", "Nadia drinks a flat white and always shares a cardamom bun.", 0.8, UM, R),
    ("p_self", "Nadia prefers being asked questions to being reassured.", 0.8, UM, R),
    ("p_self", "Надя говорит «всё хорошо», когда ей плохо.", 0.7, UM, R),
    ("p_mother", "Irina Volkova raised Nadia and Katya alone after Pavel left in 1999.", 0.95,
     AX, R),
    ("p_mother", "Мама пишет Наде только по-русски и всегда подписывается «целую, мама».", 0.9,
     UM, R),
    ("p_mother", "Irina broke her wrist in September 2026 and is moving to a flat near Katya.",
     0.85, OP, R),
    ("p_father", "Pavel Volkov left the family in February 1999, when Nadia was seven.", 0.95,
     AX, R),
    ("n_boundary_papa", "Pavel Volkov died of a heart attack in February 2025, aged 61.", 0.95,
     AX, R),
    ("p_father", "Папа хранил детские рисунки Нади и Кати в синем чемодане.", 0.9, OP, R),
    ("p_grandma", "Baba Vera died in February 2021; Nadia could not travel to the funeral.",
     0.95, AX, R),
    ("p_grandma", "Бабушка Вера научила Надю прививать яблони на даче.", 0.9, SM, R),
    ("p_sister", "Katya is three years younger than Nadia and lives in Port Alder with Erik and "
     "their daughter Zoya.", 0.9, OP, R),
    ("p_sister", "Nadia and Katya repaired their relationship in November 2024 and again after "
     "a fight in September 2026.", 0.8, UM, R),
    ("p_zoya", "Zoya Lind was born on 13 January 2024; Nadia is her aunt.", 0.95, OP, R),
    ("p_tom", "Nadia and Tom Reyes married in 2017 and divorced in October 2022.", 0.95, OP, R),
    ("p_sam", "Sam Adeyemi is a furniture maker; he and Nadia met at the dog park in February "
     "2024.", 0.9, OP, R),
    ("p_sam", "Nadia moved into Sam's house on Quarry Road in September 2025.", 0.9, OP, R),
    ("p_dana", "Dana Whitfield has been Nadia's best friend since university.", 0.95, UM, R),
    ("p_dana", "Coffee with Dana at Juniper & Grind is Nadia's reset ritual.", 0.75, UM, R),
    ("p_therapist", "Dr. Helen Marsh has been Nadia's therapist since April 2020.", 0.95, OP, R),
    ("p_leonie", "Leonie Hart has been Nadia's literary agent since April 2026.", 0.9, OP, R),
    ("n_biscuit", "Biscuit is a scruffy terrier mix adopted from the Port Alder shelter in "
     "March 2023.", 0.95, OP, R),
    ("n_biscuit", "Biscuit had knee ligament surgery in June 2026 and has recovered.", 0.85,
     OP, R),
    ("n_running", "Nadia's best times: 10k 54:12 (October 2026), half marathon 2:04:51 "
     "(October 2025).", 0.9, OP, R),
    ("n_running", "Running is one of Nadia's main ways to regulate stress.", 0.8, UM, R),
    ("n_burnout", "Nadia was signed off with burnout and a depressive episode in November "
     "2021.", 0.95, AX, R),
    ("n_burnout", "Saying 'just this week' about overwork is Nadia's early burnout warning "
     "sign.", 0.7, UM, R),
    ("n_money", "Money has been tight for Nadia since she left Brightline; she hides money "
     "problems at first.", 0.75, UM, R),
    ("n_boundary_papa", "Do not ask about Papa's funeral or cause of death unless Nadia raises "
     "it.", 0.95, UM, R),
    ("p_ilse", "Ilse Marrow is the seventeen-year-old lighthouse keeper's daughter of "
     "Greywick.", 0.95, OP, FC),
    ("p_ilse", "Ilse writes letters to her missing father that she never sends.", 0.9, OP, FC),
    ("p_crane", "Aldous Crane, the Tallyman, is the novel's villain: a harbormaster who buys "
     "the debts of drowned men.", 0.95, OP, FC),
    ("p_crane", "Crane's own father drowned owing money; the ledger was his father's.", 0.85,
     OP, FC),
    ("p_tamsin", "Old Tamsin keeps the Salt Orchard and teaches Ilse to graft; she dies in the "
     "first frost.", 0.9, OP, FC),
    ("p_wren", "Wren sells her half of the orchard to Crane to protect Ilse from their father's "
     "debt.", 0.85, OP, FC),
    ("p_tobias", "Tobias Marrow is lost at sea and never comes back.", 0.9, OP, FC),
    ("n_orchard", "The Salt Orchard grows apple trees in salt ground at the edge of the cliff.",
     0.9, OP, FC),
    ("n_manuscript", "The Salt Orchard has three parts: Salt, Root and Fruit.", 0.9, OP, FM),
    ("n_manuscript", "The revised manuscript is about 98,000 words and went to Leonie in "
     "September 2026.", 0.9, OP, FM),
    ("n_draft1", "The first draft was finished on 18 November 2023 at 94,300 words.", 0.95,
     OP, FM),
    ("n_draft2", "The second draft cut the prologue and ended at 101,000 words.", 0.9, OP, FM),
    ("p_author_self", "Nadia writes Ilse braver than she feels herself to be.", 0.7, SM, MA),
    ("p_author_self", "Crane borrows Papa's phrase 'everyone pays, sooner or later'.", 0.8, SM,
     MA),
    ("n_morning_pages", "Nadia writes three pages by hand at 6 a.m. before anything else.", 0.85,
     UM, MA),
    ("n_impostor", "The impostor voice says real writers don't work in coffee shops.", 0.8,
     SM, MA),
]

# fmt: on


# =========================================================================== build
def build() -> dict:
    ordered = sorted(EVENTS, key=lambda e: e["ts"])  # stable: ties keep source order
    ids = [e["id"] for e in ordered]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate event id")
    key_of = {eid: f"e{i:03d}" for i, eid in enumerate(ids, start=1)}
    position = {eid: i for i, eid in enumerate(ids)}
    entity_keys = {e[0] for e in ENTITIES}
    if len(entity_keys) != len(ENTITIES):
        raise ValueError("duplicate entity key")
    for f, t, kind, _ in RELATIONS:
        if f not in entity_keys or t not in entity_keys:
            raise ValueError(f"relation {f} -{kind}-> {t}: unknown entity")
    for ent, text, *_ in FACTS:
        if ent not in entity_keys:
            raise ValueError(f"fact {text!r}: unknown entity {ent}")

    events = []
    for i, e in enumerate(ordered):
        cls = e["cls"]
        floor, archivable = CLASS_DEFAULTS[cls]
        if e["flag"]:
            archivable = 0
        if e["floor"] is not None:
            floor = e["floor"]
        if e["archivable"] is not None:
            archivable = e["archivable"]
        for p in e["parents"]:
            if p not in key_of:
                raise ValueError(f"{e['id']}: unknown parent {p}")
            if position[p] >= i:
                raise ValueError(f"{e['id']}: parent {p} is not earlier")
        for k in e["ents"]:
            if k not in entity_keys:
                raise ValueError(f"{e['id']}: unknown entity {k}")
        item = {
            "key": key_of[e["id"]],
            "title": e["title"],
            "description": e["desc"],
            "ts": e["ts"],
            "belief_class": cls,
            "confidence_floor": floor,
            "archivable": archivable,
            "user_flag": e["flag"],
            "domain": e["domain"],
            "sentiment": e["sent"],
            "sentiment_label": e["label"],
            "emotions": e["emotions"],
            "entities": e["ents"],
            "parents": [key_of[p] for p in e["parents"]],
        }
        if e["bio"]:
            item["biometrics"] = e["bio"]
        events.append(item)

    return {
        "format": "pulse-corpus/1",
        "now": NOW,
        "entities": [
            {"key": k, "name": n, "kind": kind, "aliases": a, "domain": d}
            | ({"do_not_probe": True} if k in BOUNDARIES else {})
            | ({"is_self": True} if k == "p_self" else {})   # the memory's own person
            for k, n, kind, d, a in ENTITIES
        ],
        "relations": [
            {"from": f, "to": t, "kind": kind, "strength": s} for f, t, kind, s in RELATIONS
        ],
        "events": events,
        "facts": [
            {"entity": ent, "text": text, "confidence": c, "belief_class": cls, "domain": dom}
            for ent, text, c, cls, dom in FACTS
        ],
    }


def render() -> str:
    return json.dumps(build(), ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        print(f"{OUT.name} is up to date")
        return 0
    OUT.write_text(text, encoding="utf-8")
    data = json.loads(text)
    print(
        f"wrote {OUT} ({len(data['events'])} events, {len(data['entities'])} entities, "
        f"{len(data['relations'])} relations, {len(data['facts'])} facts)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
