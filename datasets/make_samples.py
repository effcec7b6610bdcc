#!/usr/bin/env python3
"""Generate the hand-written citejudge sample data (datasets/ and runs/).

All text below is original sample text written for citejudge (license: MIT, same as the
project). Organisations, people, places and studies marked as fictional are invented; the rest
is general knowledge paraphrased in our own words and is not meant to be authoritative.

Re-running this script rewrites every file byte-identically:

    python datasets/make_samples.py

Files written (paths relative to the project root):

    datasets/rag25/topics.jsonl, datasets/rag25/corpus.jsonl
    runs/rag25/teamR-run-a.jsonl, runs/rag25/teamR-run-b.jsonl, runs/rag25/teamS-raw24.jsonl
    datasets/ragtime/topics.jsonl, runs/ragtime/teamT-run1.jsonl, runs/ragtime/teamT-run2.jsonl
    datasets/dragun/topics.jsonl, runs/dragun/teamD-base.jsonl, runs/dragun/teamD-strong.jsonl
    datasets/sample_cases.jsonl   (one line per answer sentence: which judge cases it exercises)
    datasets/README.md            (table of files, counts and cases; computed here)

Documents are stored as lists of sentences and joined with a single space, so "verbatim" and
"fused" answer sentences are built from the document text itself and are exact by construction.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_BYTES = 20_000

# ---------------------------------------------------------------------------------------------
# Documents: key -> (doc id, title, url, sentences)
# ---------------------------------------------------------------------------------------------

DOCS: dict[str, tuple[str, str, str, list[str]]] = {}


def doc(key: str, doc_id: str, title: str, url: str, sents: list[str]) -> None:
    assert key not in DOCS, key
    DOCS[key] = (doc_id, title, url, sents)


def did(key: str) -> str:
    return DOCS[key][0]


def text(key: str) -> str:
    return " ".join(DOCS[key][3])


def sent(key: str, i: int) -> str:
    return DOCS[key][3][i]


def words(s: str) -> int:
    return len(s.split())


# ----------------------------------------- rag25 ---------------------------------------------

doc(
    "HB_LONG",
    "msmarco_v2.1_doc_07_1184302#0_2231957",
    "Honeybee navigation",
    "https://example.org/rag25/honeybee-navigation",
    [
        "Honeybees (Apis mellifera) are among the best-studied navigators in the animal kingdom.",
        "A forager that leaves the hive may travel 3.5 km or more to reach a patch of flowers, and it must find its way back with a full load of nectar.",
        "To do this, the bee combines several sources of information, i.e., the position of the sun, the pattern of polarized light in the sky, landmarks on the ground and an internal estimate of distance.",
        "The sun acts as the main compass.",
        "Because the sun moves across the sky by approx. 15 degrees per hour, a bee must correct its heading as the day goes on.",
        "Experiments show that foragers learn the sun's daily course during their first flights and can later estimate its position even when it is hidden behind a hill.",
        "When the sun itself is covered, bees use the polarization pattern of blue sky, which they detect with specialised photoreceptors in the upper rim of the eye.",
        "This “dorsal rim area” contains cells that respond to ultraviolet light polarized in a particular direction.",
        "Distance is not measured in time or energy, as was long assumed.",
        "Instead, the bee counts the optic flow – the apparent motion of the ground and vegetation across its eyes – during the outbound flight.",
        "In a well-known tunnel experiment, bees flying through a narrow, patterned tube reported a distance approx. 40 times longer than the real one.",
        "The result suggests that the bee's odometer can be fooled by dense visual texture.",
        "Landmarks help near the hive and near the food source.",
        "Foragers memorise snapshots of the surroundings and compare the current view with the stored image until the two match.",
        "Once a good source is found, the returning bee shares its location through the waggle dance.",
        "The dancer runs a straight line on the vertical comb while shaking its abdomen, then circles back to repeat the run.",
        "The angle of the straight run relative to vertical encodes the direction of the food relative to the sun.",
        "The duration of the run encodes distance: in one colony studied by Dr. J. R. Halvorsen, each second of waggling corresponded to roughly 750 m of flight.",
        "Dance followers do not read the message perfectly, and recruits often search an area of several hundred square metres around the advertised spot.",
        "Scent carried on the dancer's body helps them narrow the search.",
        "Navigation errors are common in poor weather.",
        "Strong crosswinds can push a forager sideways, and bees partly compensate by flying at an angle into the wind.",
        "A 2019 survey of 1,250,000 recorded foraging trips in Europe and the U.S. estimated that 42% of trips on heavily overcast days took longer than the colony average, compared with 9% on clear days.",
        "Pesticides can also disturb navigation; sublethal doses of some neonicotinoids reduce the rate at which foragers find their way home.",
        "Researchers now track individual bees with harmonic radar, which follows a tiny transponder glued to the thorax.",
        "Radar tracks revealed that bees displaced to an unfamiliar site first fly a short vector, then switch to looping search flights until they recognise a landmark.",
        "These findings have inspired small flying robots that steer by optic flow rather than by satellite positioning.",
        "A summary of the methods, with links to open tracking data, is kept at https://example.org/bee.nav/tracks.html.",
        "Many questions remain open, e.g., how a bee weighs conflicting cues when the sun and a familiar landmark point in different directions.",
        "The German term “Tanzsprache” (dance language) is still common in the literature, although some researchers now prefer the more neutral “recruitment signal”.",
        "A review by Dr. A. Müller (fictional, like the other researchers named here) counted more than 2,300 papers on bee navigation published between 1950 and 2020.",
    ],
)

doc(
    "HB_DANCE",
    "msmarco_v2.1_doc_07_1184302#4_2236610",
    "Decoding the waggle dance",
    "https://example.org/rag25/waggle-dance",
    [
        "The waggle dance is performed on the vertical surface of the comb inside a dark hive.",
        "Followers track the dancer by touch and by the airborne sound produced by its wing vibrations.",
        "A run straight upward means that the food lies in the direction of the sun, while a run 60 degrees to the left of vertical points 60 degrees to the left of the sun.",
        "Food closer than approx. 100 m is usually advertised with a round dance, which signals “search nearby” without a precise direction.",
        "Dancers returning from richer sources repeat more circuits, so better patches attract more recruits.",
        "The same code is used by scouts searching for a new nest site during swarming.",
    ],
)

doc(
    "HB_POL",
    "msmarco_v2.1_doc_22_503118#1_1109244",
    "Polarized light and cloudy days",
    "https://example.org/rag25/polarized-light",
    [
        "Sunlight scattered in the atmosphere becomes partly polarized, forming a regular pattern of e-vectors centred on the sun.",
        "Bees can read this pattern from a small patch of blue sky, even when the sun is behind a cloud.",
        "Under complete overcast the pattern fades, and foragers rely more heavily on landmarks and on their memory of the sun's course.",
        "Laboratory tests with rotating polarizing filters, first reported by Dr. E. Sørensen's group, caused dancing bees to shift the angle of their runs by the same amount as the filter.",
        "The effect disappeared when the dorsal rim of the eye was painted over.",
    ],
)

doc(
    "HB_BUMBLE",
    "msmarco_v2.1_doc_31_77420#2_160388",
    "Bumblebee foraging range",
    "https://example.org/rag25/bumblebees",
    [
        "Bumblebees (Bombus spp.) forage closer to the nest than honeybees, typically within 1.5 km.",
        "They do not perform a recruitment dance; instead, a returning forager runs excitedly through the nest and releases a pheromone that prompts nest-mates to leave.",
        "Because colonies are small, with approx. 50 to 400 workers, each bee's individual learning matters more than collective information.",
        "Bumblebees are valued as pollinators of greenhouse tomatoes, a trade worth more than €15 million a year in some countries.",
    ],
)

doc(
    "TP_BARRAGE",
    "msmarco_v2.1_doc_12_660915#0_1402231",
    "Tidal barrages",
    "https://example.org/rag25/tidal-barrages",
    [
        "A tidal barrage is a dam built across an estuary that traps water at high tide and releases it through turbines as the tide falls.",
        "The La Rance plant in Brittany, France, opened in 1966 and has a capacity of 240 MW.",
        "It is operated by Électricité de France and doubles as a road bridge between Saint-Malo and Dinard.",
        "South Korea’s Sihwa Lake station, completed in 2011, is slightly larger at 254 MW.",
        "Barrages need a tidal range of at least 5 m to be economic, which limits them to a small number of sites.",
        "Because they block the estuary, they change sediment flows and can harm feeding grounds for wading birds.",
    ],
)

doc(
    "TP_STREAM",
    "msmarco_v2.1_doc_12_661007#2_1403876",
    "Tidal stream turbines",
    "https://example.org/rag25/tidal-stream",
    [
        "Tidal stream turbines work like underwater wind turbines, turning in fast currents instead of relying on a height difference.",
        "Seawater is about 830 times denser than air, so a rotor of modest size can produce a large output at current speeds of 2.5 m/s.",
        "The MeyGen array in Scotland’s Pentland Firth began exporting power in 2016 with four turbines of 1.5 MW each.",
        "Because the tides follow the moon, the output can be predicted years in advance, unlike wind or solar.",
        "Maintenance is difficult, i.e., turbines must be lifted from the seabed by specialised vessels during short windows of slack water.",
    ],
)

doc(
    "TP_COST",
    "msmarco_v2.1_doc_40_2290114#3_4711025",
    "The cost of tidal electricity",
    "https://example.org/rag25/tidal-cost",
    [
        "Tidal electricity remains expensive compared with offshore wind.",
        "A 2021 review by the (fictional) consultancy Marlow & Finch estimated the levelised cost of early tidal stream projects at approx. €300 per MWh, about three times the cost of new offshore wind.",
        "A proposed tidal lagoon in the U.S. Pacific Northwest was cancelled after its projected budget rose to $3.2 billion.",
        "Developers argue that costs will fall by 40–50% once turbines are built in series, as happened with wind power in the 2010s.",
        "Governments in the U.K. and France have offered ring-fenced support, e.g., a guaranteed price of €15 above the market rate for each megawatt-hour.",
    ],
)

doc(
    "TP_WAVE",
    "msmarco_v2.1_doc_05_98121#1_187342",
    "Wave energy converters",
    "https://example.org/rag25/wave-energy",
    [
        "Wave energy converters capture the up-and-down motion of ocean swells rather than the horizontal flow of the tides.",
        "Designs include floating buoys, hinged rafts and oscillating water columns built into breakwaters.",
        "Wave power is harder to predict than tidal power because swells depend on distant storms.",
        "The Portuguese Aguçadoura project of 2008, which used three snake-like machines, operated for only a few months.",
        "Most wave devices tested so far have produced less than 1 MW each.",
    ],
)

doc(
    "PP_GUT",
    "msmarco_v2.1_doc_18_332470#0_705118",
    "Gutenberg's press",
    "https://example.org/rag25/gutenberg",
    [
        "Johannes Gutenberg, a goldsmith from Mainz, developed a printing system with movable metal type around 1450.",
        "His key innovations were a hand mould for casting identical letters, an oil-based ink and a press adapted from those used for wine and paper.",
        "The Gutenberg Bible, completed around 1455, was printed in approx. 180 copies, of which about 49 survive today.",
        "Each page had 42 lines, which is why it is also called the 42-line Bible.",
        "Gutenberg's business partner Johann Fust later sued him over an unpaid loan and took over much of the workshop.",
    ],
)

doc(
    "PP_ASIA",
    "msmarco_v2.1_doc_18_332470#2_706940",
    "Movable type in East Asia",
    "https://example.org/rag25/east-asian-printing",
    [
        "Printing with carved wooden blocks was practised in China by the 7th century, and the Diamond Sutra of 868 is the oldest dated printed book that survives.",
        "Around 1040, the artisan Bi Sheng made movable type from baked clay, a technique described in the essays of the scholar Shen Kuo.",
        "The Chinese term for movable type, 活字 (huózì), literally means “living characters”.",
        "In Korea, metal movable type was used to print the Buddhist text known as the Jikji in 1377, decades before Gutenberg’s Bible.",
        "Because Chinese writing uses thousands of characters, woodblocks often remained cheaper than movable type for everyday books.",
    ],
)

doc(
    "PP_SPREAD",
    "msmarco_v2.1_doc_26_1450977#1_3012645",
    "The spread of printing in Europe",
    "https://example.org/rag25/printing-spread",
    [
        "From Mainz, printing spread rapidly along trade routes.",
        "By 1480 presses were operating in more than 110 towns, and by 1500 the number exceeded 250.",
        "Venice became the leading centre, where the printer Aldus Manutius introduced italic type and compact octavo editions.",
        "Historians estimate that approx. 30,000 editions, known as incunabula, were printed before 1501, amounting to perhaps 12,000,000 copies.",
        "In Nürnberg, Anton Koberger ran one of the largest printing firms of the time, with more than 20 presses.",
        "A digitised list of early presses is available at https://example.org/incunabula.db/towns.",
    ],
)

doc(
    "PP_PAPER",
    "msmarco_v2.1_doc_03_45120#0_90377",
    "Papermaking before print",
    "https://example.org/rag25/papermaking",
    [
        "Paper was invented in China and reached the Islamic world in the 8th century, where mills in Baghdad and Damascus produced it on a large scale.",
        "European paper mills appeared in Spain and Italy during the 12th and 13th centuries.",
        "Cheap rag paper was essential to the success of printing, since parchment for a single Bible required the skins of approx. 170 calves.",
        "The Italian town of Fabriano became famous for watermarks, i.e., faint designs pressed into the sheet while it was still wet.",
    ],
)

# Corpus-only distractors (never cited).
doc(
    "CX_ANT",
    "msmarco_v2.1_doc_44_610233#0_1288402",
    "Ant navigation by path integration",
    "https://example.org/rag25/ants",
    [
        "Desert ants of the genus Cataglyphis find their way home by path integration, i.e., by continuously adding up the direction and distance of every step.",
        "They count strides rather than optic flow: ants fitted with tiny stilts overshot the nest, while ants with shortened legs stopped short.",
        "Like bees, they use the polarized-light compass in the sky.",
        "Foraging trips can cover more than 200 m on featureless salt pans in North Africa.",
    ],
)

doc(
    "CX_WIND",
    "msmarco_v2.1_doc_09_220871#3_455019",
    "Offshore wind farms",
    "https://example.org/rag25/offshore-wind",
    [
        "Offshore wind farms place turbines in shallow coastal waters where winds are stronger and steadier than on land.",
        "The largest turbines now have rotors more than 220 m across and ratings above 14 MW.",
        "Fixed foundations are used in water up to approx. 60 m deep; beyond that, floating platforms anchored to the seabed are needed.",
        "Costs fell by roughly 60% in the decade to 2020, making offshore wind one of the cheapest sources of new power in northern Europe.",
    ],
)

doc(
    "CX_CARDS",
    "msmarco_v2.1_doc_26_1451803#0_3014110",
    "Block-printed playing cards",
    "https://example.org/rag25/playing-cards",
    [
        "Playing cards reached Europe from the Mamluk lands in the late 14th century.",
        "Card makers in Ulm and Nürnberg printed the outlines from woodblocks and coloured them by hand or with stencils.",
        "Because decks wore out quickly, cards were among the first mass-produced printed goods.",
        "Very few early decks survive, and single sheets are often found reused as stiffening in book bindings.",
    ],
)

doc(
    "CX_PUMPED",
    "msmarco_v2.1_doc_12_664120#1_1410007",
    "Pumped-storage hydroelectricity",
    "https://example.org/rag25/pumped-storage",
    [
        "Pumped-storage plants move water between two reservoirs at different heights.",
        "When electricity is cheap, pumps lift water to the upper reservoir; when demand peaks, it flows back down through turbines.",
        "The round-trip efficiency is typically 70–80%, i.e., some energy is lost in each cycle.",
        "Pumped storage still accounts for more than 90% of the world's grid-scale energy storage capacity.",
    ],
)

doc(
    "CX_MONARCH",
    "msmarco_v2.1_doc_31_80116#0_165402",
    "Monarch butterfly migration",
    "https://example.org/rag25/monarchs",
    [
        "Each autumn, monarch butterflies from eastern North America fly up to 4,000 km to overwinter in the mountain forests of central Mexico.",
        "They navigate with a time-compensated sun compass located partly in their antennae.",
        "No single butterfly completes the round trip; the return to the north takes several generations.",
        "Winter colony counts have fallen sharply since the 1990s, although numbers vary a great deal from year to year.",
    ],
)

# ---------------------------------------- ragtime --------------------------------------------

doc(
    "GL_LONG",
    "rt-doc-000101",
    "Mountain glacier retreat",
    "https://example.org/ragtime/glacier-retreat",
    [
        "Mountain glaciers outside Greenland and Antarctica have lost mass almost every year since the 1980s.",
        "Long-term monitoring of reference glaciers on several continents shows that the average glacier has thinned by more than 25 m of water equivalent since 1970.",
        "Water equivalent, i.e., the depth of water that the lost ice would form if melted, is used because ice and snow have different densities.",
        "The main driver of retreat is rising summer air temperature.",
        "A warming of 1 °C can raise the snowline by roughly 150 m, exposing more ice to melt.",
        "Changes in precipitation also matter: glaciers in maritime climates depend on heavy winter snowfall, which has become less reliable.",
        "Dust and black carbon deposited on the surface darken the ice and increase the energy it absorbs.",
        "In the European Alps the loss has been particularly fast.",
        "The Mer de Glace near Chamonix has lost approx. 120 m of thickness at its lower end since the early 20th century, and visitors now descend more than 500 steps to reach the ice.",
        "In Switzerland, glaciers lost about 10% of their remaining volume in the two years 2022 and 2023 alone.",
        "The Rhône Glacier is partly covered with white fleece blankets each summer to slow melting near a popular ice grotto.",
        "In the Andes, small tropical glaciers are disappearing fastest.",
        "Bolivia's Chacaltaya glacier, once home to the world's highest ski run, had vanished by 2009.",
        "In the Himalaya – sometimes called the “Third Pole” – glaciers supply meltwater to rivers used by hundreds of millions of people.",
        "In the short term, retreat can increase river flow, because more ice melts each summer.",
        "Researchers call the moment when this extra meltwater starts to decline “peak water”.",
        "Many basins in the Andes and Central Asia have already passed peak water, according to a 2018 modelling study led by Dr. L. K. Moreau (a fictional author).",
        "After peak water, dry-season flow falls, which affects irrigation, hydropower and drinking water.",
        "Glacier retreat also creates new hazards.",
        "Meltwater collects in lakes dammed by loose moraine, and a sudden collapse of the dam can release a flood that travels tens of kilometres downstream.",
        "Steep rock walls that were once supported by ice become unstable, increasing the risk of rockfalls and landslides.",
        "Scientists measure glaciers in several ways.",
        "Field teams drill stakes into the ice and record how much of each stake is exposed at the end of summer.",
        "Satellites such as ICESat-2 measure surface height with laser pulses, with a vertical accuracy of approx. 3.5 cm over flat ice.",
        "Repeat aerial photographs, some dating back to the 1930s, allow changes to be reconstructed over almost a century.",
        "Projections depend strongly on future emissions.",
        "Under a low-emission scenario, approx. 50% of the world's glaciers by number could survive to 2100, but under a high-emission scenario more than 80% may disappear.",
        "Even with strong climate policy, many small glaciers below 3,500 m in the Alps are expected to vanish.",
        "An interactive map of monitored glaciers is published at https://example.org/glacier.watch/map.",
        "The loss is also cultural: in 2019 residents of Iceland held a memorial for Okjökull, the first Icelandic glacier to lose its status as a glacier.",
        "The bronze plaque’s text, written as a “letter to the future”, ends with the words “you know if we did it”.",
        "Glacier retreat also raises sea level: mountain glaciers contributed roughly a fifth of the observed rise in the early 21st century.",
        "Tourism suffers as well, because ski areas and viewpoints that depended on ice lose their main attraction.",
        "Some valleys are testing artificial ice reservoirs, sometimes called “ice stupas”, which freeze winter meltwater into tall cones that release water slowly in spring.",
        "Such projects help villages locally but cannot replace the storage that a large glacier provides.",
        "For most mountain regions, the extent of future loss will be decided less by local measures than by how quickly global emissions fall.",
    ],
)

doc(
    "GL_ALPS",
    "rt-doc-000117",
    "Alpine glaciers in the 2022 heatwave",
    "https://example.org/ragtime/alps-2022",
    [
        "The summer of 2022 was the worst on record for Alpine glaciers.",
        "A heatwave in July pushed the freezing level above 5,000 m, higher than the summit of Mont Blanc.",
        "On 3 July 2022 a section of the Marmolada glacier in the Italian Dolomites collapsed, killing 11 hikers.",
        "Swiss monitors reported that some glaciers lost more than 6% of their volume in a single season.",
        "Saharan dust that fell in spring darkened the snow and made it melt earlier than usual.",
    ],
)

doc(
    "GL_GLOF",
    "5c1e8a52-3b7f-4d21-9e0a-6f2b9d4c7a13",
    "Glacial lake outburst floods",
    "https://example.org/ragtime/glof",
    [
        "A glacial lake outburst flood (GLOF) happens when water stored behind a moraine or ice dam is released suddenly.",
        "The number and total area of glacial lakes worldwide increased by about 50% between 1990 and 2018.",
        "In October 2023 a GLOF from South Lhonak Lake in Sikkim, India, destroyed a hydropower dam downstream.",
        "Early-warning systems use water-level sensors and sirens to give villages downstream approx. 30 minutes of warning.",
        "Engineers can lower the risk by siphoning or pumping water out of a lake, e.g., at Imja Tsho in Nepal, where the lake level was cut by 3.4 m in 2016.",
    ],
)

doc(
    "LI_BRINE",
    "rt-doc-000204",
    "Lithium from salt-flat brines",
    "https://example.org/ragtime/lithium-brine",
    [
        "Much of the world's lithium comes from brines pumped from beneath salt flats in Chile, Argentina and Bolivia, often called the “lithium triangle”.",
        "The brine is left in large evaporation ponds for 12 to 18 months until the lithium concentration is high enough for processing.",
        "Producers say that approx. 2 million litres of brine are evaporated for each tonne of lithium carbonate.",
        "Direct lithium extraction (DLE), which uses sorbents or membranes to pull lithium out of brine, could shorten the process to days.",
        "Several DLE pilot plants were announced in 2023, with combined investment of more than $1.4 billion.",
    ],
)

doc(
    "LI_HARD",
    "rt-doc-000231",
    "Hard-rock lithium mining",
    "https://example.org/ragtime/lithium-hard-rock",
    [
        "In Australia, the largest producer, lithium is mined from a hard-rock mineral called spodumene.",
        "The ore is crushed, concentrated and usually shipped to China, where it is roasted at approx. 1,050 °C and treated with acid.",
        "Hard-rock mining uses less water than brine evaporation but emits more carbon dioxide per tonne of product.",
        "Open-pit mines in Western Australia such as Greenbushes have operated for decades.",
        "New projects in Europe, e.g., in Portugal and Serbia, have met strong local opposition over dust, noise and river pollution.",
    ],
)

doc(
    "LI_WATER",
    "a7d3f0c4-12e9-4b8a-b5d6-0e4c9f2a8b71",
    "Water disputes in the Salar de Atacama",
    "https://example.org/ragtime/atacama-water",
    [
        "The Salar de Atacama in northern Chile is one of the driest places on Earth.",
        "Indigenous Lickanantay communities say that brine pumping lowers the water table and threatens wetlands and flamingo feeding grounds.",
        "Mining companies reply that brine is not fresh water and that their freshwater use is small.",
        "A 2022 hydrological study (fictional) found that the fresh-brine interface had shifted by up to 1.2 km in some parts of the basin.",
        "Chile’s government announced in 2023 that future lithium contracts would require a state-controlled partner.",
    ],
)

doc(
    "LI_RECYCLE",
    "rt-doc-000266",
    "Battery recycling",
    "https://example.org/ragtime/battery-recycling",
    [
        "Recycling could supply a growing share of lithium as electric-car batteries reach the end of their lives.",
        "Hydrometallurgical plants dissolve shredded cells in acid and recover lithium, nickel and cobalt with yields above 90%.",
        "At present, less than 5% of lithium-ion batteries worldwide are recycled, largely because few have yet been retired.",
        "The EU’s battery regulation sets a target of recovering 50% of lithium from waste batteries by the end of 2027.",
    ],
)

doc(
    "UH_DEF",
    "rt-doc-000310",
    "Urban heat island",
    "https://example.org/ragtime/urban-heat-island",
    [
        "An urban heat island is a city area that is significantly warmer than its rural surroundings.",
        "The difference is largest at night, when asphalt, concrete and brick release heat absorbed during the day; in large cities it can reach 7 °C or more.",
        "Causes include dark surfaces, a lack of vegetation, waste heat from cars and air conditioners, and tall buildings that trap radiation.",
        "In Chinese the phenomenon is called 热岛效应 (rè dǎo xiàoyìng), literally “heat island effect”.",
        "Land-surface temperatures measured by satellite can differ from air temperatures by several degrees, so both kinds of data are used.",
    ],
)

doc(
    "UH_COOL",
    "rt-doc-000342",
    "Cool roofs and street trees",
    "https://example.org/ragtime/cooling-measures",
    [
        "Cool roofs coated with reflective white paint can lower roof-surface temperatures by up to 30 °C on a sunny afternoon.",
        "Street trees cool the air through shade and evapotranspiration, i.e., the evaporation of water from leaves.",
        "A (fictional) study of 312,500 street segments in European cities found that areas with 40% tree cover were about 1.5 °C cooler than treeless ones.",
        "Medellín, Colombia, created a network of green corridors along busy roads that city officials credit with lowering local temperatures by about 2 °C.",
        "Such programmes cost far less than air conditioning: one city estimated €15 per resident per year.",
    ],
)

doc(
    "UH_HEALTH",
    "e2b94d1a-7c3f-4a6e-8d05-b1f7c2e9a640",
    "Heat and health in cities",
    "https://example.org/ragtime/heat-health",
    [
        "Heat is the deadliest weather hazard in many countries.",
        "During the European summer of 2022, heat contributed to more than 60,000 deaths, according to a study published in 2023.",
        "Older adults, outdoor workers and people living alone in top-floor flats face the highest risk.",
        "Night-time heat is particularly harmful because the body cannot recover during sleep.",
        "Heat-health action plans, e.g., in Ahmedabad, India, combine early warnings, cooling centres and training for hospital staff.",
    ],
)

doc(
    "UH_MEASURE",
    "rt-doc-000377",
    "Measuring urban temperatures",
    "https://example.org/ragtime/measuring-heat",
    [
        "Urban climatologists combine fixed weather stations, satellite images and mobile measurements.",
        "In citizen-science “heat walks”, volunteers carry sensors on bicycles or cars along set routes at 3 p.m. and 9 p.m.",
        "A single traverse can record more than 10,000 temperature readings.",
        "Readings are corrected for the time of day so that they can be compared across neighbourhoods.",
    ],
)

# ----------------------------------------- dragun --------------------------------------------
# Everything in this section is fictional: Estmark, Novira-N, the Daily Harbinger, Port Calder,
# Dunmore County and all people and organisations named.

doc(
    "DV_LONG",
    "d1",
    "Fact-check: Novira-N and memory loss",
    "https://example.org/dragun/factcheck-novira-n",
    [
        "On 14 March 2024 the website Daily Harbinger published an article claiming that the nasal influenza vaccine Novira-N had caused memory loss in 3,200 children in Estmark.",
        "The article was shared more than 480,000 times on social media within a week.",
        "This fact-check by the Estmark Health Desk examined the claim, the data it cites and the track record of the publisher.",
        "Novira-N is a live attenuated vaccine, i.e., it contains weakened flu viruses that cannot cause illness in healthy people.",
        "It is sprayed into the nose instead of being injected, which makes it popular with parents of young children.",
        "The vaccine was approved in Estmark in 2022 after trials involving approx. 18,500 children aged 2 to 17.",
        "In those trials, the most common side effects were a runny nose (31%) and mild headache (12%).",
        "No memory or learning problems were recorded more often in vaccinated children than in the placebo group.",
        "The Daily Harbinger article relies on a single source: a spreadsheet of adverse-event reports submitted to the national reporting system.",
        "Anyone can submit such a report, including parents, doctors and pharmacists, and reports are not checked before they are published.",
        "The spreadsheet does contain 3,200 reports linked to Novira-N, but only 14 of them mention memory, concentration or “brain fog”.",
        "The remaining reports describe fever, sore throat, nosebleeds and similar short-lived symptoms.",
        "The article therefore inflates the relevant number by a factor of more than 200.",
        "Reports in the system show that an event happened after vaccination, not that the vaccine caused it.",
        "Dr. H. Lindqvist, a paediatric neurologist at Vannberg University Hospital, told the Health Desk that short-term forgetfulness is common in children with fever from any cause.",
        "“If you look for memory complaints after any winter illness, you will find them,” she said.",
        "The Estmark Medicines Agency (EMA-E) reviewed the 14 reports in April 2024 and found no pattern suggesting a causal link.",
        "Its statement, published at https://example.org/ema-e.gov/novira-n.statement, recommends continued use of the vaccine.",
        "The agency noted that approx. 640,000 doses had been given in the 2023–24 season.",
        "The Daily Harbinger has a mixed record.",
        "Since 2020 independent fact-checkers have rated 23 of its health stories as false or misleading.",
        "The site is registered to a company that also sells dietary supplements advertised as “natural immunity boosters”, costing €15 per bottle.",
        "The article did not disclose this commercial interest.",
        "Its author, listed as “J. R. Smith”, has no other published work, and the photograph on the author page also appears on a stock-image site.",
        "The article also misstates the vaccine's composition, claiming that it contains aluminium, which is not an ingredient of Novira-N.",
        "Health economists estimate that a 10-percentage-point fall in flu vaccination among children would cost Estmark’s health service about €4.5 million a year in extra hospital care.",
        "For comparison, the U.S. spends roughly $3.2 billion a year on hospital care for influenza in children, according to the same (fictional) economists.",
        "The Health Desk contacted the Daily Harbinger twice by e-mail and received no reply.",
        "Two days after our enquiry, the article was edited to say that the children had “reported” memory problems, but the headline was not changed.",
        "Other websites copied the story word for word, often without a link to the original.",
        "A translated version circulated in a neighbouring country, where Novira-N is not even licensed.",
        "Fact-checkers in two other countries reached the same conclusion independently.",
        "Parents who are worried about side effects can discuss them with a doctor or pharmacist, and can report any suspected reaction themselves.",
        "Verdict: the claim that Novira-N causes memory loss in children is false.",
        "The figure of 3,200 counts all reports, not memory problems, and neither the trials nor the agency's review found evidence of harm to memory.",
    ],
)

doc(
    "DV_TRIAL",
    "d2",
    "Novira-N clinical trial summary",
    "https://example.org/dragun/novira-n-trial",
    [
        "The phase 3 trial of Novira-N enrolled 18,512 children across 64 clinics in Estmark and two neighbouring countries.",
        "Children were randomly assigned to receive either the vaccine or a salt-water placebo spray.",
        "The vaccine prevented approx. 72% of laboratory-confirmed flu cases during the following season.",
        "Cognitive tests were given at the start and 6 months later to a sub-group of 1,140 children, and scores did not differ between the groups.",
        "The full report, written by Prof. A. Müller-Ortega and colleagues, is 212 pages long.",
    ],
)

doc(
    "DV_SITE",
    "d3",
    "About the Daily Harbinger",
    "https://example.org/dragun/about-daily-harbinger",
    [
        "The Daily Harbinger is a news and opinion website founded in 2019.",
        "It does not list an editor or a physical address, and its domain is registered through a privacy service.",
        "An analysis by the media-literacy group ClearSignal found that 61% of its articles in 2023 had no named source.",
        "The site’s revenue comes mainly from advertising and from an online shop selling supplements.",
    ],
)

doc(
    "EL_BALLOTS",
    "d4",
    "Fact-check: 12,000 ballots in Dunmore County",
    "https://example.org/dragun/dunmore-ballots",
    [
        "A viral video claimed that 12,000 ballots were thrown away in Dunmore County during the 2023 mayoral election.",
        "County officials said the bags shown in the video contained sample ballots, i.e., unofficial copies mailed to voters for reference.",
        "A hand recount of 41,870 ballots, observed by both campaigns, changed the result by only 3 votes.",
        "The county’s election director, Ms. P. Okonkwo-Reyes, said the recount cost approx. $210,000.",
    ],
)

doc(
    "DV_VAERS",
    "5",
    "How adverse-event reporting works",
    "https://example.org/dragun/adverse-event-reporting",
    [
        "National adverse-event reporting systems collect reports of health problems that occur after vaccination.",
        "They are designed to detect rare warning signals, not to prove that a vaccine caused a problem.",
        "Because reports are unverified, a rise in reports often follows media coverage rather than a real change in risk.",
        "Regulators follow up signals with studies that compare vaccinated and unvaccinated groups.",
    ],
)

doc(
    "WA_SWITCH",
    "d6",
    "Port Calder switches water source",
    "https://example.org/dragun/port-calder-switch",
    [
        "In January 2024 the city of Port Calder switched its main drinking-water source from the River Asel to the Millbrook Reservoir.",
        "The switch was part of a €38 million programme that also replaced 2,400 lead service lines.",
        "The reservoir water is softer than river water, i.e., it contains fewer dissolved minerals.",
        "To prevent corrosion, the utility adds orthophosphate, which forms a protective layer inside old pipes.",
        "Residents can look up whether their address has a lead line at https://example.org/portcalder.water/lead-map.",
    ],
)

doc(
    "WA_TESTS",
    "d7",
    "Lead testing in Port Calder",
    "https://example.org/dragun/port-calder-lead-tests",
    [
        "Between February and June 2024 the utility tested water from 1,020 homes.",
        "The 90th-percentile lead level was 4.1 µg/L, below the national action level of 10 µg/L.",
        "Eleven homes exceeded the action level; all had lead service lines that had not yet been replaced.",
        "An independent laboratory, Kessler & Daughters, repeated 100 of the tests and found similar results.",
        "The utility offered free filters to every household on the lead-line map.",
    ],
)

doc(
    "WA_LEAD",
    "d8",
    "How lead gets into tap water",
    "https://example.org/dragun/lead-in-tap-water",
    [
        "Lead rarely comes from the water source itself.",
        "It usually dissolves from lead pipes, solder or brass fittings inside older buildings.",
        "A change of water chemistry can disturb the scale inside pipes, which is why a source switch must be managed carefully.",
        "Running the tap for 30 seconds to 2 minutes before drinking flushes water that has stood in the pipes.",
        "Boiling water does not remove lead.",
    ],
)

doc(
    "WA_POST",
    "d9",
    "The viral post about Port Calder's water",
    "https://example.org/dragun/port-calder-viral-post",
    [
        "The claim that Port Calder’s water is “poisoned with lead” began with a social-media post on 2 March 2024 showing brown water in a bathtub.",
        "The post was shared approx. 95,000 times.",
        "The utility said the discolouration came from iron sediment stirred up by a burst main on Hollin Street, which was repaired the same day.",
        "Iron sediment is unpleasant but is not a health risk at the levels found.",
    ],
)

doc(
    "EL_RECOUNT",
    "d10",
    "Dunmore County recount",
    "https://example.org/dragun/dunmore-recount",
    [
        "Dunmore County completed its recount of the 2023 mayoral election on 9 December.",
        "The winning margin of 318 votes shrank to 315.",
        "Both candidates accepted the result, and the state’s election commission certified it a week later.",
        "Turnout was 46.2%, the highest for a local election in the county since 1998.",
    ],
)

LONG_DOCS = {"HB_LONG", "GL_LONG", "DV_LONG"}
UNKNOWN_RAG25 = "msmarco_v2.1_doc_99_000001#0_0000001"  # teamS-raw24 reference, not in corpus
UNKNOWN_RT_REF = "rt-doc-000999"  # in references, not in documents
UNKNOWN_RT_UUID = "0d9e8f7a-6b5c-4d3e-a2f1-9c8b7a6d5e4f"  # in neither references nor documents

# ---------------------------------------------------------------------------------------------
# Topics
# ---------------------------------------------------------------------------------------------

RAG25_TOPICS = [
    {
        "id": "rag25-01",
        "narrative": "I keep bees and want to understand how a honeybee finds its way between the hive and a patch of flowers. What roles do the sun, polarized light, landmarks and the waggle dance play? When does this navigation fail?",
    },
    {
        "id": "rag25-02",
        "narrative": "How does tidal power turn the movement of the sea into electricity, and which large plants exist? I would also like to know how expensive it is compared with other renewable sources.",
    },
    {
        "id": 2503,
        "narrative": "Where and when was printing with movable type invented, and how did the printing press spread through Europe? Please also cover earlier printing in China and Korea.",
    },
]
NARR = {t["id"]: t["narrative"] for t in RAG25_TOPICS}

RAGTIME_TOPICS = [
    {
        "request_id": "rt-101",
        "original_topic": {
            "title": "Retreat of mountain glaciers",
            "background": "I am a journalist preparing a feature on how mountain glaciers have changed since the middle of the 20th century.",
            "problem_statement": "Report how fast mountain glaciers are retreating, what drives the retreat, and what it means for water supply and natural hazards downstream.",
            "limit": 2000,
        },
    },
    {
        "request_id": "rt-102",
        "original_topic": {
            "title": "Environmental cost of lithium extraction",
            "background": "A city council is comparing battery suppliers and wants to understand where lithium comes from.",
            "problem_statement": "Describe how lithium is extracted from brines and hard rock, the water and pollution disputes around extraction, and the role of recycling.",
            "limit": 2000,
        },
    },
    {
        "request_id": "rt-103",
        "title": "Urban heat islands",
        "problem_statement": "Explain why cities are warmer than the countryside, how the heat harms health, and which measures cool neighbourhoods effectively.",
        "background": "A public-health officer is drafting a summer heat plan for a mid-sized city.",
        "limit": 2000,
    },
]

DRAGUN_TOPICS = [
    {
        "request_id": "dg-1",
        "title": "Claim that the Novira-N nasal flu vaccine causes memory loss in children",
        "problem_statement": "Help a reader decide whether to trust a Daily Harbinger article claiming that the nasal flu vaccine Novira-N caused memory loss in 3,200 children. What do the trials, the medicines agency and independent fact-checkers say, and who is behind the website?",
        "background": "The reader saw the article shared by a friend and is unsure whether to vaccinate their 6-year-old this winter.",
    },
    {
        "request_id": "dg-2",
        "title": "Claim that Port Calder’s tap water is poisoned with lead",
        "problem_statement": "Help a reader assess a viral post claiming that Port Calder’s tap water became poisoned with lead after the city switched to the Millbrook Reservoir. What do test results and experts say?",
        "background": "The reader lives in Port Calder in a house built in 1931 and has young children.",
    },
]

# ---------------------------------------------------------------------------------------------
# Answer sentences. Each spec is (text, citations, cases, source) where source names the
# document sentence(s) the text was built from (or None).
# ---------------------------------------------------------------------------------------------


def V(key: str, i: int):
    """Verbatim copy of document sentence i."""
    return sent(key, i), [f"verbatim:{key}[{i}]"]


def F(key: str, i: int, joiner: str = "; ", lower: bool = True):
    """Fuse two ADJACENT sentences i and i+1 of one document."""
    a, b = sent(key, i), sent(key, i + 1)
    assert a.endswith("."), a
    if lower:
        b = b[0].lower() + b[1:]
    return a[:-1] + joiner + b, [f"fused:{key}[{i},{i + 1}]"]


def P(key: str, i: int, paraphrase: str):
    """Light paraphrase of document sentence i (30-50% of words changed; checked below)."""
    return paraphrase, [f"paraphrase:{key}[{i}]"]


def H(s: str):
    """Unsupported / hallucinated sentence."""
    return s, ["hallucinated"]


def S(text_and_src, cits, *cases):
    t, src = text_and_src
    return {"text": t, "citations": cits, "cases": list(cases), "src": src}


# ----------------------------------------- rag25 ---------------------------------------------

R = {k: did(k) for k in DOCS}

RUN_A = {
    "rag25-01": (
        ["HB_LONG", "HB_DANCE", "HB_POL", "HB_BUMBLE"],
        [
            S(V("HB_LONG", 14), [0], "verbatim"),
            S(F("HB_LONG", 16, ", and ", True), [0], "fused_adjacent"),
            S(
                P(
                    "HB_POL",
                    1,
                    "Honeybees can interpret this pattern from only a small patch of clear sky, even if a cloud hides the sun.",
                ),
                [2],
                "paraphrase",
            ),
            S(V("HB_POL", 2), [2, 7], "verbatim", "out_of_range_index"),
            S(V("HB_LONG", 10), [3], "wrong_doc"),
            S(
                H(
                    "Honeybees can also navigate by the Earth's magnetic field, which lets them fly home in complete darkness."
                ),
                [1],
                "hallucinated",
            ),
            S(("In short, bee navigation depends on several cues working together.", []), [], "no_citations"),
            S(
                (
                    "Foragers combine the sun compass, polarized light, landmarks and optic flow to find food and return home.",
                    ["summary:HB_LONG[2]"],
                ),
                [0, 1, 2, 3],
                "four_citations",
            ),
        ],
    ),
    "rag25-02": (
        ["TP_BARRAGE", "TP_STREAM", "TP_COST", "TP_WAVE"],
        [
            S(V("TP_BARRAGE", 0), [0], "verbatim"),
            S(V("TP_BARRAGE", 1), [0], "verbatim"),
            S(
                P(
                    "TP_STREAM",
                    3,
                    "Since the tides are governed by the moon, their output can be forecast years ahead, which is not possible for wind or solar.",
                ),
                [1],
                "paraphrase",
            ),
            S(F("TP_COST", 0, "; ", True), [2], "fused_adjacent"),
            S(V("TP_COST", 2), [3], "wrong_doc"),
            S(("", []), [], "empty_text", "no_citations"),
            S(
                H("The world's largest tidal plant, in Canada's Bay of Fundy, supplies 2.1 GW to Nova Scotia."),
                [0],
                "hallucinated",
            ),
        ],
    ),
    2503: (
        ["PP_GUT", "PP_ASIA", "PP_SPREAD", "PP_PAPER"],
        [
            S(V("PP_GUT", 0), [0], "verbatim"),
            S(F("PP_GUT", 2, ", and ", True), [0], "fused_adjacent"),
            S(
                P(
                    "PP_ASIA",
                    3,
                    "Korean printers used metal movable type to produce the Buddhist Jikji in 1377, several decades before Gutenberg’s Bible.",
                ),
                [1],
                "paraphrase",
            ),
            S(V("PP_ASIA", 2), [1], "verbatim", "non_ascii_cjk"),
            S(V("PP_SPREAD", 1), [2], "verbatim"),
            S(("The press transformed intellectual life in Europe.", []), [], "no_citations"),
            S(
                (
                    "Printing developed in East Asia centuries before it was mechanised in Europe, where cheap rag paper and movable metal type made books affordable.",
                    ["summary"],
                ),
                [0, 1, 2, 3],
                "four_citations",
            ),
        ],
    ),
}

RUN_B = {
    "rag25-01": (
        ["HB_POL", "HB_LONG", "HB_DANCE"],
        [
            S(
                P(
                    "HB_LONG",
                    6,
                    "If the sun is hidden, bees switch to the polarization pattern of the blue sky, sensed by special photoreceptors along the top edge of the eye.",
                ),
                [1],
                "paraphrase",
            ),
            S(V("HB_DANCE", 3), [2], "verbatim", "curly_quotes"),
            S(V("HB_LONG", 22), [1], "verbatim", "abbrev_US_percent_separators"),
            S(
                H(
                    "Young bees learn the dance by watching older foragers for approx. 12 days before their first flight."
                ),
                [2],
                "hallucinated",
            ),
            S(V("HB_POL", 3), [0], "verbatim", "abbrev_Dr_non_ascii"),
            S(("Beekeepers can use this knowledge when choosing where to place their hives.", []), [], "no_citations"),
        ],
    ),
    2503: (
        ["PP_SPREAD", "PP_GUT", "PP_ASIA"],
        [
            S(V("PP_GUT", 1), [1], "verbatim"),
            S(V("PP_SPREAD", 2), ["@PP_SPREAD", "@PP_ASIA"], "verbatim", "string_doc_id_citations"),
            S(
                P(
                    "PP_SPREAD",
                    3,
                    "Scholars reckon that roughly 30,000 editions, called incunabula, appeared before 1501, perhaps 12,000,000 copies in total.",
                ),
                [0],
                "paraphrase",
            ),
            S(F("PP_ASIA", 0, "; ", True), [2], "fused_adjacent"),
            S(V("PP_GUT", 4), [2], "wrong_doc"),
            S(("", []), [], "empty_text", "no_citations"),
        ],
    ),
}

RAW24 = {
    "rag25-01": (
        ["HB_LONG", "HB_POL", None],
        [
            S(V("HB_LONG", 1), [0], "verbatim", "decimal"),
            S(V("HB_LONG", 27), [0], "verbatim", "url_in_text"),
            S(F("HB_LONG", 8, "; ", True), [0], "fused_adjacent", "en_dash"),
            S(
                H("Bees flying over calm water, which offers little optic flow, tend to underestimate distance."),
                [2],
                "unknown_doc_id",
            ),
            S(
                P(
                    "HB_POL",
                    0,
                    "Sunlight that is scattered by the air becomes partly polarized and forms a regular e-vector pattern around the sun.",
                ),
                [1],
                "paraphrase",
            ),
        ],
    ),
    "rag25-02": (
        ["TP_BARRAGE", "TP_COST"],
        [
            S(V("TP_BARRAGE", 4), [0], "verbatim"),
            S(V("TP_COST", 4), [1], "verbatim", "abbrev_UK_eg_currency"),
            S(
                P(
                    "TP_COST",
                    3,
                    "Developers believe prices will drop by 40–50% when turbines are mass-produced, as happened to wind power during the 2010s.",
                ),
                [1],
                "paraphrase",
            ),
            S(
                H("Tidal barrages have no effect on fish, because turbines turn too slowly to harm them."),
                [0, 1],
                "hallucinated",
            ),
        ],
    ),
    2503: (
        ["PP_GUT", "PP_ASIA"],
        [
            S(V("PP_ASIA", 1), [1], "verbatim"),
            S(
                P(
                    "PP_GUT",
                    2,
                    "The Gutenberg Bible, finished around 1455, had a print run of roughly 180 copies, and about 49 still exist today.",
                ),
                [0],
                "paraphrase",
            ),
            S(("Both traditions show that cheap paper mattered as much as the type itself.", []), [], "no_citations"),
            S(V("PP_ASIA", 4), [1], "verbatim"),
        ],
    ),
}
RAW24_CORPUS = [
    "HB_LONG",
    "CX_ANT",
    "HB_POL",
    "TP_BARRAGE",
    "CX_WIND",
    "TP_COST",
    "CX_CARDS",
    "PP_GUT",
    "CX_PUMPED",
    "PP_ASIA",
    "CX_MONARCH",
]

# ---------------------------------------- ragtime --------------------------------------------

T_RUN1 = {
    "rt-101": (
        ["GL_LONG", "GL_ALPS", "GL_GLOF", UNKNOWN_RT_REF],
        [
            S(V("GL_LONG", 0), {"GL_LONG": 0.93}, "verbatim"),
            S(F("GL_LONG", 14, "; ", True), {"GL_LONG": 0.88}, "fused_adjacent"),
            S(V("GL_ALPS", 2), {"GL_ALPS": 0.95, "GL_LONG": 0.2}, "verbatim"),
            S(
                H("Glaciers in Alaska are losing ice faster than those of any other mountain region."),
                {UNKNOWN_RT_REF: 0.71},
                "unknown_doc_id",
            ),
            S(
                P(
                    "GL_GLOF",
                    0,
                    "A glacial lake outburst flood, or GLOF, occurs when water held back by a moraine or an ice barrier bursts out all at once.",
                ),
                {"GL_GLOF": 0.8},
                "paraphrase",
            ),
            S(
                H("Artificial snow cannons now cover 60% of Swiss glacier surfaces every winter."),
                {"GL_ALPS": 0.35},
                "hallucinated",
            ),
            S(V("GL_LONG", 23), {"GL_LONG": 0.9}, "verbatim", "decimal"),
        ],
    ),
    "rt-102": (
        ["LI_BRINE", "LI_HARD", "LI_WATER", "LI_RECYCLE"],
        [
            S(V("LI_BRINE", 0), {"LI_BRINE": 0.97}, "verbatim", "curly_quotes"),
            S(
                P(
                    "LI_WATER",
                    1,
                    "Local Lickanantay communities argue that pumping brine lowers the water table and endangers wetlands where flamingos feed.",
                ),
                {"LI_WATER": 0.74},
                "paraphrase",
            ),
            S(
                ("Lithium demand is expected to keep rising over the next decade.", []),
                {},
                "empty_citation_dict",
                "no_citations",
            ),
            S(V("LI_HARD", 2), {"LI_RECYCLE": 0.6}, "wrong_doc"),
            S(F("LI_BRINE", 1, ", and ", True), {"LI_BRINE": 0.85}, "fused_adjacent"),
            S(V("LI_RECYCLE", 3), {"LI_RECYCLE": 0.9}, "verbatim"),
        ],
    ),
    "rt-103": (
        ["UH_DEF", "UH_COOL", "UH_HEALTH", "UH_MEASURE"],
        [
            S(V("UH_DEF", 0), {"UH_DEF": 0.99}, "verbatim"),
            S(V("UH_DEF", 3), {"UH_DEF": 0.66}, "verbatim", "non_ascii_cjk"),
            S(
                (
                    "Dark surfaces, missing trees and waste heat make cities hotter, and street trees and cool roofs can offset part of the effect.",
                    ["summary"],
                ),
                {"UH_DEF": 0.8, "UH_COOL": 0.7, "UH_HEALTH": 0.3, "UH_MEASURE": 0.25},
                "four_citations",
            ),
            S(
                P(
                    "UH_HEALTH",
                    3,
                    "Heat at night is especially harmful because the body cannot recover while sleeping.",
                ),
                {"UH_HEALTH": 0.7},
                "paraphrase",
            ),
            S(
                H("Painting every road white in one desert city cut summer electricity use by half."),
                {"UH_COOL": 0.5},
                "hallucinated",
            ),
        ],
    ),
}

T_RUN2 = {
    "rt-101": (
        ["GL_LONG", "GL_GLOF"],
        [
            S(("", []), {}, "empty_text", "empty_citation_dict", "no_citations"),
            S(V("GL_LONG", 8), {"GL_LONG": 0.9}, "verbatim"),
            S(V("GL_LONG", 29), {"GL_LONG": 0.85}, "verbatim", "non_ascii"),
            S(
                P(
                    "GL_LONG",
                    19,
                    "Meltwater gathers in lakes held back by loose moraine, and if the dam suddenly fails the flood can run tens of kilometres downstream.",
                ),
                {"GL_GLOF": 0.6, "GL_LONG": 0.6},
                "paraphrase",
            ),
            S(F("GL_GLOF", 3, ", and ", True), {"GL_GLOF": 0.82}, "fused_adjacent"),
            S(V("GL_LONG", 12), {"GL_GLOF": 0.5}, "wrong_doc"),
        ],
    ),
    "rt-102": (
        ["LI_HARD", "LI_WATER", "LI_BRINE"],
        [
            S(V("LI_HARD", 0), {"LI_HARD": 0.9}, "verbatim"),
            S(
                H("Lithium prices fell by 80% during 2023 because of a glut of recycled material."),
                {UNKNOWN_RT_UUID: 0.55},
                "unknown_doc_id",
            ),
            S(F("LI_WATER", 1, "; ", True), {"LI_WATER": 0.9}, "fused_adjacent"),
            S(
                H("Brine evaporation ponds in Bolivia are heated with diesel burners to speed up production."),
                {"LI_BRINE": 0.4},
                "hallucinated",
            ),
            S(
                P(
                    "LI_HARD",
                    4,
                    "New mines planned in Europe, for example in Portugal and Serbia, have faced fierce local resistance because of dust, noise and polluted rivers.",
                ),
                {"LI_HARD": 0.7},
                "paraphrase",
            ),
        ],
    ),
    "rt-103": (
        ["UH_DEF", "UH_COOL", "UH_HEALTH"],
        [
            S(V("UH_COOL", 1), {"UH_COOL": 0.92}, "verbatim", "plain_string_document"),
            S(V("UH_DEF", 1), {"UH_DEF": 0.9}, "verbatim"),
            S(F("UH_HEALTH", 0, "; ", True), {"UH_HEALTH": 0.88}, "fused_adjacent"),
            S(V("UH_COOL", 3), {"UH_HEALTH": 0.4}, "wrong_doc"),
            S(
                P(
                    "UH_COOL",
                    0,
                    "Roofs coated with reflective white paint can cut their surface temperature by as much as 30 °C on sunny afternoons.",
                ),
                {"UH_COOL": 0.6},
                "paraphrase",
                "plain_string_document",
            ),
        ],
    ),
}
PLAIN_STRING_DOCS = {("teamT-run2", "rt-103"): {"UH_COOL"}}

# ----------------------------------------- dragun --------------------------------------------

D_STRONG = {
    "dg-1": (
        ["DV_LONG", "DV_TRIAL", "DV_SITE", "EL_BALLOTS", "DV_VAERS"],
        [
            S(V("DV_LONG", 8), ["DV_LONG"], "verbatim"),
            S(F("DV_LONG", 10, "; ", True), ["DV_LONG"], "fused_adjacent", "curly_quotes"),
            S(V("DV_LONG", 16), ["DV_LONG"], "verbatim"),
            S(V("DV_VAERS", 1), [5], "verbatim", "int_doc_id_citation"),
            S(V("DV_TRIAL", 3), ["DV_TRIAL"], "verbatim"),
            S(V("DV_SITE", 2), ["DV_SITE"], "verbatim"),
            S(V("DV_LONG", 33), ["DV_LONG", "DV_TRIAL"], "verbatim"),
            S(("Readers should treat the Daily Harbinger article as unreliable.", []), [], "no_citations"),
        ],
    ),
    "dg-2": (
        ["WA_SWITCH", "WA_TESTS", "WA_LEAD", "WA_POST", "EL_RECOUNT"],
        [
            S(V("WA_SWITCH", 0), ["WA_SWITCH"], "verbatim"),
            S(F("WA_TESTS", 1, ", and ", True), ["WA_TESTS"], "fused_adjacent", "non_ascii"),
            S(V("WA_POST", 2), ["WA_POST"], "verbatim"),
            S(V("WA_LEAD", 0), ["WA_LEAD"], "verbatim"),
            S(F("WA_SWITCH", 2, "; ", True), ["WA_SWITCH"], "fused_adjacent"),
            S(V("WA_LEAD", 2), ["WA_LEAD", "WA_SWITCH", "WA_TESTS", "WA_POST"], "verbatim", "four_citations"),
        ],
    ),
}

D_BASE = {
    "dg-1": (
        ["DV_LONG", "DV_TRIAL", "DV_SITE", "EL_BALLOTS"],
        [
            S(
                P(
                    "DV_LONG",
                    0,
                    "On 14 March 2024 the Daily Harbinger ran a story saying that Novira-N, a nasal flu vaccine, had caused memory loss in 3,200 Estmark children.",
                ),
                ["DV_LONG"],
                "paraphrase",
            ),
            S(V("DV_TRIAL", 2), ["DV_SITE"], "wrong_doc"),
            S(
                H("Novira-N was withdrawn from sale in three countries after reports of seizures."),
                ["DV_LONG"],
                "hallucinated",
            ),
            S(V("DV_LONG", 20), ["EL_BALLOTS"], "wrong_doc"),
            S(
                P(
                    "DV_LONG",
                    3,
                    "Novira-N is a live weakened vaccine, meaning it holds flu viruses too weak to make healthy people ill.",
                ),
                ["DV_LONG"],
                "paraphrase",
            ),
            S(
                H("Several experts agree that the vaccine is completely free of risk for every child."),
                ["DV_LONG", "DV_TRIAL", "DV_SITE", "EL_BALLOTS"],
                "hallucinated",
                "four_citations",
            ),
            S(("", []), [], "empty_text", "no_citations"),
        ],
    ),
    "dg-2": (
        ["WA_SWITCH", "WA_TESTS", "WA_LEAD", "WA_POST", "EL_RECOUNT"],
        [
            S(
                P(
                    "WA_TESTS",
                    1,
                    "Lead at the 90th percentile was measured at 4.1 µg/L, comfortably under the national threshold for action, which is 10 µg/L.",
                ),
                ["WA_TESTS"],
                "paraphrase",
            ),
            S(
                H("Port Calder’s mayor admitted that the reservoir had been contaminated by a nearby battery factory."),
                ["WA_SWITCH"],
                "hallucinated",
            ),
            S(V("WA_LEAD", 4), ["EL_RECOUNT"], "wrong_doc"),
            S(V("WA_SWITCH", 1), ["WA_SWITCH"], "verbatim", "currency"),
            S(
                P(
                    "WA_POST",
                    0,
                    "The allegation that the water in Port Calder is “poisoned with lead” started with a social-media post from 2 March 2024 that showed a bath full of brown water.",
                ),
                ["WA_POST"],
                "paraphrase",
            ),
            S(("The claim is probably exaggerated.", []), [], "no_citations"),
        ],
    ),
}

# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------

CASE_ROWS: list[dict] = []


def doc_obj(key: str) -> dict:
    doc_id, title, url, _ = DOCS[key]
    return {"id": doc_id, "title": title, "text": text(key), "url": url}


def response_length(sents: list[dict]) -> int:
    return sum(words(s["text"]) for s in sents)


def rag25_cits(cits: list) -> list:
    out = []
    for c in cits:
        if isinstance(c, str) and c.startswith("@"):
            out.append(did(c[1:]))  # "format 2": a doc-id string
        else:
            out.append(c)
    return out


def record(path: str, topic, sents: list[dict], cits_out: list) -> None:
    for i, (s, c) in enumerate(zip(sents, cits_out)):
        CASE_ROWS.append(
            {
                "file": path,
                "topic": topic,
                "index": i,
                "cases": s["cases"],
                "citations": c,
                "source": s["src"],
                "text": s["text"],
            }
        )


def build_rag25_run(path: str, team: str, run_id: str, spec: dict) -> list[dict]:
    lines = []
    for topic, (ref_keys, sents) in spec.items():
        refs = [did(k) for k in ref_keys]
        answer = [{"text": s["text"], "citations": rag25_cits(s["citations"])} for s in sents]
        record(path, topic, sents, [a["citations"] for a in answer])
        lines.append(
            {
                "metadata": {
                    "team_id": team,
                    "run_id": run_id,
                    "narrative_id": topic,
                    "type": "automatic",
                    "narrative": NARR[topic],
                },
                "references": refs,
                "response_length": response_length(sents),
                "answer": answer,
                "documents": {did(k): doc_obj(k) for k in ref_keys},
            }
        )
    return lines


def build_raw24(path: str) -> list[dict]:
    lines = []
    for topic, (ref_keys, sents) in RAW24.items():
        refs = [did(k) if k else UNKNOWN_RAG25 for k in ref_keys]
        answer = [{"text": s["text"], "citations": list(s["citations"])} for s in sents]
        record(path, topic, sents, [a["citations"] for a in answer])
        lines.append(
            {
                "run_id": "teamS-raw24",
                "topic_id": topic,
                "topic": NARR[topic],
                "references": refs,
                "response_length": response_length(sents),
                "answer": answer,
            }
        )
    return lines


def build_corpus() -> list[dict]:
    lines = []
    for n, key in enumerate(RAW24_CORPUS):
        doc_id, title, _, _ = DOCS[key]
        if n % 2 == 0:
            lines.append({"doc_id": doc_id, "title": title, "text": text(key)})
        else:
            lines.append({"docno": doc_id, "text": text(key)})
    return lines


def conv_ids(c):
    """Map doc keys to doc ids in citation dicts/lists; leave raw ids and ints alone."""
    if isinstance(c, dict):
        return {(did(k) if k in DOCS else k): v for k, v in c.items()}
    return [did(k) if isinstance(k, str) and k in DOCS else k for k in c]


def build_ragtime_run(path: str, run_id: str, spec: dict) -> list[dict]:
    lines = []
    for topic, (ref_keys, sents) in spec.items():
        responses = [{"text": s["text"], "citations": conv_ids(s["citations"])} for s in sents]
        record(path, topic, sents, [r["citations"] for r in responses])
        plain = PLAIN_STRING_DOCS.get((run_id, topic), set())
        documents = {did(k): (text(k) if k in plain else doc_obj(k)) for k in ref_keys if k in DOCS}
        lines.append(
            {
                "metadata": {"team_id": "teamT", "run_id": run_id, "topic_id": topic},
                "responses": responses,
                "references": [did(k) if k in DOCS else k for k in ref_keys],
                "documents": documents,
            }
        )
    return lines


def build_dragun_run(path: str, run_id: str, spec: dict) -> list[dict]:
    lines = []
    for topic, (doc_keys, sents) in spec.items():
        responses = [{"text": s["text"], "citations": conv_ids(s["citations"])} for s in sents]
        record(path, topic, sents, [r["citations"] for r in responses])
        lines.append(
            {
                "metadata": {"team_id": "teamD", "run_id": run_id, "topic_id": topic},
                "responses": responses,
                "documents": {did(k): doc_obj(k) for k in doc_keys},
            }
        )
    return lines


def dump_jsonl(rel: str, lines: list[dict]) -> bytes:
    data = "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in lines).encode("utf-8")
    assert len(data) < MAX_BYTES, (rel, len(data))
    path = ROOT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data


# ---------------------------------------------------------------------------------------------
# Checks (run on every generation; they make the promises in the README true)
# ---------------------------------------------------------------------------------------------

_TOK = re.compile(r"\w+(?:[.'’-]\w+)*", re.UNICODE)


def changed_fraction(original: str, paraphrase: str) -> float:
    a = [t.lower() for t in _TOK.findall(original)]
    b = [t.lower() for t in _TOK.findall(paraphrase)]
    same = sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return 1 - same / len(a)


def check_docs() -> None:
    for key, (_, _, _, sents) in DOCS.items():
        n = words(text(key))
        if key in LONG_DOCS:
            assert 25 <= len(sents) <= 40 and 600 <= n <= 900, (key, len(sents), n)
        else:
            assert 2 <= len(sents) <= 8 and 40 <= n <= 200, (key, len(sents), n)
    ids = [d[0] for d in DOCS.values()]
    assert len(ids) == len(set(ids))


def check_rows() -> None:
    texts = {k: text(k) for k in DOCS}
    for row in CASE_ROWS:
        src = row["source"]
        for s in src if isinstance(src, list) else []:
            m = re.fullmatch(r"(verbatim|fused|paraphrase):(\w+)\[([\d,]+)\]", s)
            if not m:
                continue
            kind, key, idx = m.group(1), m.group(2), [int(x) for x in m.group(3).split(",")]
            if kind == "verbatim":
                assert row["text"] == sent(key, idx[0]) and row["text"] in texts[key]
            elif kind == "fused":
                a, b = sent(key, idx[0]), sent(key, idx[1])
                assert row["text"].startswith(a[:-1]) and row["text"].endswith(b[1:])
                assert idx[1] == idx[0] + 1
            elif kind == "paraphrase":
                f = changed_fraction(sent(key, idx[0]), row["text"])
                row["changed_fraction"] = round(f, 2)
                assert 0.30 <= f <= 0.50, (row["file"], row["topic"], row["index"], round(f, 3))
        if "four_citations" in row["cases"]:
            assert len(row["citations"]) == 4
        if "empty_text" in row["cases"]:
            assert row["text"] == "" and not row["citations"]


# ---------------------------------------------------------------------------------------------
# README
# ---------------------------------------------------------------------------------------------

CASE_DESCRIPTIONS = [
    ("verbatim", "sentence copied exactly from the cited document"),
    ("paraphrase", "light paraphrase of one sentence of the cited document (30–50% of words changed, measured)"),
    ("fused_adjacent", "two adjacent sentences of the cited document joined into one"),
    ("hallucinated", "unsupported sentence that nevertheless carries a citation"),
    ("wrong_doc", "sentence copied from one document but citing a different one"),
    ("no_citations", "sentence with an empty citation list / dict"),
    ("four_citations", "sentence with 4 citations (exceeds a max-3-citations setting)"),
    ("empty_text", 'sentence whose text is "" (no citations)'),
    ("out_of_range_index", "int citation index ≥ len(references)"),
    (
        "string_doc_id_citations",
        'RAG25 "format 2": citations are doc-id strings, other sentences of the same report use int indices',
    ),
    ("unknown_doc_id", "cited document id that has no text (not in `documents` / not in the corpus)"),
    ("int_doc_id_citation", 'DRAGUN citation given as int `5` with no `references`: it is doc id "5"'),
    ("empty_citation_dict", "RAGTIME citations `{}`"),
    ("plain_string_document", "cited document whose `documents` value is a plain string, not an object"),
]


def md_cell(x) -> str:
    return str(x).replace("|", "\\|")


def build_readme(stats: list[dict]) -> str:
    out = []
    out.append("# citejudge sample data\n")
    out.append(
        "Small, hand-written sample topics, runs and documents for the three track shapes "
        "citejudge reads (TREC RAG 2025 / RAG24, RAGTIME, DRAGUN). They are used by the "
        "README's main command and by golden-file tests.\n"
    )
    out.append(
        "All text is original sample text written for citejudge (license: MIT, the same as "
        "the project); it is not copied from any real corpus. The DRAGUN topics (Estmark, "
        "Novira-N, the Daily Harbinger, Port Calder, Dunmore County) are entirely fictional. The "
        "rag25 and ragtime documents mix general knowledge, put in our own words, with invented "
        "researchers, studies and figures (e.g. the 2019 survey of 1,250,000 foraging trips); "
        "they are test fixtures, not a source of facts. The documents are short "
        "encyclopedic texts, three of them long (25–40 sentences, 600–900 words) to exercise "
        "passage windows: `HB_LONG` (rag25), `GL_LONG` (ragtime) and `DV_LONG` (dragun, doc id `d1`). "
        "Texts contain abbreviations (Dr., U.S., U.K., approx., i.e., e.g., p.m.), decimals, "
        "initials (J. R. Smith), URLs, numbers with separators, percentages, currencies "
        "($, €), hyphenated and apostrophe words, and non-ASCII text (é, ü, ø, °, µ, en "
        "dashes, curly quotes, Chinese 活字 and 热岛效应).\n"
    )
    out.append(
        "Everything here is generated by `make_samples.py` (run `python datasets/make_samples.py` "
        "from the project root); edit the generator, not the files. Re-running it rewrites "
        "every file byte-identically, checks that every file is < 20 KB, that verbatim "
        "sentences occur in their documents and that paraphrases change 30–50% of the words.\n"
    )
    out.append("## Files\n")
    out.append(
        "Counts are computed by the generator. *Reports* = JSON lines of a run; *sentences* = "
        "answer/response entries (including empty ones); *citations* = total citation entries "
        "over all sentences (list items or dict keys, including out-of-range and unknown ones); "
        "*docs* = embedded or corpus documents (distinct per line, summed over lines).\n"
    )
    out.append("| File | Shape | Topics | Reports | Sentences | Citations | Docs | Judge cases exercised |")
    out.append("|---|---|---:|---:|---:|---:|---:|---|")
    for st in stats:
        out.append(
            "| "
            + " | ".join(
                md_cell(st[k])
                for k in ("file", "shape", "topics", "reports", "sentences", "citations", "docs", "cases")
            )
            + " |"
        )
    out.append("")
    out.append(
        "`sample_cases.jsonl` has one line per answer sentence of every run: "
        '`{"file", "topic", "index", "cases", "citations", "source"}` '
        "(plus `changed_fraction` for paraphrases). Besides the judge cases below, `cases` may carry "
        "informational text-feature tags (`decimal`, `url_in_text`, `en_dash`, `curly_quotes`, "
        "`non_ascii`, `non_ascii_cjk`, `currency`, `abbrev_*`). `source` names the document sentence(s) a "
        "sentence was built from, as `KIND:DOCKEY[i]` with the document keys listed below; "
        "`index` is the 0-based position in `answer` / `responses`.\n"
    )
    out.append("## Judge cases\n")
    out.append("| Case | Meaning |")
    out.append("|---|---|")
    for name, desc in CASE_DESCRIPTIONS:
        out.append(f"| `{name}` | {md_cell(desc)} |")
    out.append("")
    out.append(
        "Expected ordering: `runs/dragun/teamD-strong` cites mostly verbatim or fused sentences "
        "and `teamD-base` mostly paraphrases, hallucinations and wrong documents, so a "
        "leaderboard should rank strong above base. `teamR-run-b` does not answer topic "
        "`rag25-02`. Topic `2503` is an int id everywhere it appears (`id`, `narrative_id`, "
        "`topic_id`).\n"
    )
    out.append("## Where the cases are\n")
    out.append(
        "`index` is the 0-based sentence position in `answer` (rag25) or `responses` "
        "(ragtime, dragun). The same data is in `sample_cases.jsonl`.\n"
    )
    out.append("| Case | Locations (file: topic[index], ...) |")
    out.append("|---|---|")
    for name, _ in CASE_DESCRIPTIONS:
        by_file: dict[str, list[str]] = {}
        for row in CASE_ROWS:
            if name in row["cases"]:
                by_file.setdefault(Path(row["file"]).stem, []).append(f"{row['topic']}[{row['index']}]")
        locs = "; ".join(f"{f}: {', '.join(v)}" for f, v in by_file.items())
        out.append(f"| `{name}` | {md_cell(locs)} |")
    out.append("")
    out.append("## Document keys\n")
    out.append("| Key | Doc id | Title | Sentences | Words |")
    out.append("|---|---|---|---:|---:|")
    for key, (doc_id, title, _, sents) in DOCS.items():
        out.append(f"| `{key}` | `{doc_id}` | {md_cell(title)} | {len(sents)} | {words(text(key))} |")
    out.append("")
    out.append(
        "Unknown doc ids (cited but without text): "
        f"`{UNKNOWN_RAG25}` (teamS-raw24 reference, not in `rag25/corpus.jsonl`), "
        f"`{UNKNOWN_RT_REF}` (teamT-run1 rt-101, in `references` only), "
        f"`{UNKNOWN_RT_UUID}` (teamT-run2 rt-102, in neither `references` nor `documents`).\n"
    )
    return "\n".join(out)


def run_stats(rel: str, shape: str, lines: list[dict]) -> dict:
    sents_key = "answer" if any("answer" in l for l in lines) else "responses"
    topics = set()
    n_s = n_c = n_d = 0
    for l in lines:
        md = l.get("metadata", {})
        topics.add(str(md.get("narrative_id", md.get("topic_id", l.get("topic_id")))))
        n_s += len(l[sents_key])
        n_c += sum(len(s["citations"]) for s in l[sents_key])
        n_d += len(l.get("documents", {}))
    cases = []
    for row in CASE_ROWS:
        if row["file"] == rel:
            for c in row["cases"]:
                if c in dict(CASE_DESCRIPTIONS) and c not in cases:
                    cases.append(c)
    order = [c for c, _ in CASE_DESCRIPTIONS]
    cases.sort(key=order.index)
    return {
        "file": f"`{rel}`",
        "shape": shape,
        "topics": len(topics),
        "reports": len(lines),
        "sentences": n_s,
        "citations": n_c,
        "docs": n_d if n_d else "–(corpus)",
        "cases": ", ".join(f"`{c}`" for c in cases),
    }


def main() -> None:
    check_docs()
    stats = []
    written = []

    def put(rel, lines):
        dump_jsonl(rel, lines)
        written.append(rel)
        return lines

    topics = put("datasets/rag25/topics.jsonl", RAG25_TOPICS)
    stats.append(
        {
            "file": "`datasets/rag25/topics.jsonl`",
            "shape": "RAG25 topics `{id, narrative}`",
            "topics": len(topics),
            "reports": "",
            "sentences": "",
            "citations": "",
            "docs": "",
            "cases": "int topic id `2503`",
        }
    )
    corpus = put("datasets/rag25/corpus.jsonl", build_corpus())
    stats.append(
        {
            "file": "`datasets/rag25/corpus.jsonl`",
            "shape": "corpus: `{doc_id, title, text}` (even lines) / `{docno, text}` (odd lines)",
            "topics": "",
            "reports": "",
            "sentences": "",
            "citations": "",
            "docs": len(corpus),
            "cases": f"both id key styles; {len(RAW24_CORPUS) - 6} uncited distractors; "
            "lacks teamS-raw24's unknown reference",
        }
    )
    for rel, team, run_id, spec, shape in [
        (
            "runs/rag25/teamR-run-a.jsonl",
            "teamR",
            "teamR-run-a",
            RUN_A,
            "RAG25 (metadata, int-index citations, documents)",
        ),
        ("runs/rag25/teamR-run-b.jsonl", "teamR", "teamR-run-b", RUN_B, "RAG25; omits topic rag25-02"),
    ]:
        stats.append(run_stats(rel, shape, put(rel, build_rag25_run(rel, team, run_id, spec))))
    rel = "runs/rag25/teamS-raw24.jsonl"
    stats.append(run_stats(rel, "RAG24 raw (no metadata, no documents; docs from corpus)", put(rel, build_raw24(rel))))

    topics = put("datasets/ragtime/topics.jsonl", RAGTIME_TOPICS)
    stats.append(
        {
            "file": "`datasets/ragtime/topics.jsonl`",
            "shape": "RAGTIME requests: nested `original_topic` (rt-101, rt-102), flat (rt-103)",
            "topics": len(topics),
            "reports": "",
            "sentences": "",
            "citations": "",
            "docs": "",
            "cases": "nested and flat request forms",
        }
    )
    for rel, run_id, spec in [
        ("runs/ragtime/teamT-run1.jsonl", "teamT-run1", T_RUN1),
        ("runs/ragtime/teamT-run2.jsonl", "teamT-run2", T_RUN2),
    ]:
        stats.append(
            run_stats(
                rel, "RAGTIME (responses, citations dict id→confidence)", put(rel, build_ragtime_run(rel, run_id, spec))
            )
        )

    topics = put("datasets/dragun/topics.jsonl", DRAGUN_TOPICS)
    stats.append(
        {
            "file": "`datasets/dragun/topics.jsonl`",
            "shape": "DRAGUN requests (flat)",
            "topics": len(topics),
            "reports": "",
            "sentences": "",
            "citations": "",
            "docs": "",
            "cases": "fictional news claims (vaccine, water supply; election docs as distractors)",
        }
    )
    for rel, run_id, spec in [
        ("runs/dragun/teamD-base.jsonl", "teamD-base", D_BASE),
        ("runs/dragun/teamD-strong.jsonl", "teamD-strong", D_STRONG),
    ]:
        stats.append(
            run_stats(
                rel,
                "DRAGUN (responses, citations = doc-id lists, no references)",
                put(rel, build_dragun_run(rel, run_id, spec)),
            )
        )

    check_rows()
    put("datasets/sample_cases.jsonl", [{k: v for k, v in r.items() if k != "text"} for r in CASE_ROWS])
    stats.append(
        {
            "file": "`datasets/sample_cases.jsonl`",
            "shape": "one line per run sentence (see below)",
            "topics": "",
            "reports": "",
            "sentences": len(CASE_ROWS),
            "citations": "",
            "docs": "",
            "cases": "machine-readable list of the cases above",
        }
    )

    readme = build_readme(stats).encode("utf-8")
    (ROOT / "datasets/README.md").write_bytes(readme)
    for rel in written + ["datasets/README.md"]:
        print(f"{(ROOT / rel).stat().st_size:>6}  {rel}")


if __name__ == "__main__":
    main()
