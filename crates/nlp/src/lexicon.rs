//! Closed word lists: stop-words, titles, connectors, months, demonyms. Each list is sorted and
//! de-duplicated (checked by a test) so lookups binary-search; the lists consulted for every
//! token are also compiled into hash sets.

use crate::wordset::WordSet;

/// Closed-class and very common words that never start or end a name (lower case).
#[rustfmt::skip]
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "across", "after", "afterwards", "again", "against", "ah", "all",
    "almost", "alone", "along", "already", "also", "although", "always", "am", "among", "amongst",
    "an", "and", "another", "any", "anybody", "anyhow", "anyone", "anything", "anyway", "anywhere",
    "are", "aren't", "around", "as", "at", "be", "became", "because", "become", "becomes",
    "becoming", "been", "before", "beforehand", "behind", "being", "below", "beside", "besides",
    "between", "beyond", "both", "but", "by", "can", "can't", "cannot", "could", "couldn't", "did",
    "didn't", "do", "does", "doesn't", "doing", "don't", "done", "down", "during", "each",
    "either", "else", "elsewhere", "enough", "especially", "etc", "even", "ever", "every",
    "everybody", "everyone", "everything", "everywhere", "except", "few", "for", "former",
    "formerly", "from", "further", "furthermore", "had", "hadn't", "has", "hasn't", "have",
    "haven't", "having", "he", "he'd", "he'll", "he's", "hence", "her", "here", "hereafter",
    "hereby", "herein", "heretofore", "herewith", "hers", "herself", "him", "himself", "his",
    "hitherto", "how", "however", "hundred", "i", "i'd", "i'll", "i'm", "i've", "ie", "if", "in",
    "indeed", "instead", "into", "is", "isn't", "it", "it's", "its", "itself", "just", "last",
    "latter", "least", "less", "let", "let's", "lets", "like", "likewise", "made", "make", "makes",
    "many", "may", "me", "meanwhile", "might", "mine", "more", "moreover", "most", "mostly",
    "much", "must", "my", "myself", "namely", "neither", "never", "nevertheless", "next", "no",
    "nobody", "none", "noone", "nor", "not", "nothing", "now", "nowhere", "of", "off", "often",
    "oh", "ok", "okay", "on", "once", "one", "only", "onto", "or", "other", "others", "otherwise",
    "ought", "our", "ours", "ourselves", "out", "over", "own", "per", "perhaps", "please",
    "rather", "said", "same", "say", "says", "several", "shall", "she", "she'd", "she'll", "she's",
    "should", "shouldn't", "since", "so", "some", "somehow", "someone", "something", "sometime",
    "sometimes", "somewhat", "somewhere", "still", "such", "than", "thank", "thanks", "that",
    "that's", "the", "thee", "their", "theirs", "them", "themselves", "then", "thence", "there",
    "there's", "thereafter", "thereby", "therefore", "therein", "thereof", "thereon", "therewith",
    "these", "they", "they'd", "they'll", "they're", "they've", "thine", "this", "those", "thou",
    "though", "through", "throughout", "thus", "thy", "to", "today", "together", "tomorrow",
    "tonight", "too", "toward", "towards", "under", "unless", "unlike", "until", "unto", "up",
    "upon", "us", "very", "via", "was", "wasn't", "we", "we'd", "we'll", "we're", "we've", "well",
    "were", "weren't", "what", "what's", "whatever", "when", "whence", "whenever", "where",
    "whereas", "whereby", "wherein", "whereof", "wherewith", "whether", "which", "while",
    "whither", "who", "whoever", "whole", "whom", "whose", "why", "will", "with", "within",
    "without", "won't", "would", "wouldn't", "ye", "yes", "yesterday", "yet", "you", "you'd",
    "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves",
];

/// Capitalised words that are sentence starters, salutations or discourse words, never names by themselves.
#[rustfmt::skip]
pub const NON_NAME_CAPS: &[&str] = &[
    "accordingly", "additionally", "afterward", "altogether", "amen", "and", "anyhow", "anyway",
    "apart", "applause", "appropriately", "besides", "but", "certainly", "citizens", "clearly",
    "consequently", "currently", "dear", "equally", "eventually", "evidently", "fellow",
    "fellow-americans", "fellow-citizen", "fellow-citizens", "finally", "firstly", "fortunately",
    "generally", "gentlemen", "happily", "here", "honorable", "hopefully", "however", "ideally",
    "importantly", "incidentally", "initially", "jr", "ladies", "lastly", "later", "laughter",
    "let", "likewise", "madam", "naturally", "no", "nonetheless", "nor", "notwithstanding", "now",
    "obviously", "of-course", "or", "overall", "personally", "plainly", "possibly", "presumably",
    "previously", "probably", "recently", "regrettably", "respectfully", "secondly", "similarly",
    "simply", "sincerely", "sir", "so", "specifically", "sr", "subsequently", "surely", "then",
    "there", "thereupon", "thirdly", "thus", "today", "together", "tonight", "truly", "ultimately",
    "undoubtedly", "unfortunately", "us", "whereupon", "yes", "yet",
];

/// Lower-case words allowed inside a name between capitalised words.
#[rustfmt::skip]
pub const CONNECTORS: &[&str] = &[
    "al", "and", "bin", "da", "de", "del", "della", "den", "der", "des", "di", "du", "el", "for",
    "ibn", "la", "le", "of", "the", "upon", "van", "von", "y",
];

/// Month names (lower case).
#[rustfmt::skip]
pub const MONTHS: &[&str] = &[
    "apr", "april", "aug", "august", "dec", "december", "feb", "february", "jan", "january", "jul",
    "july", "jun", "june", "mar", "march", "may", "nov", "november", "oct", "october", "sep",
    "sept", "september",
];

/// Weekday names (lower case).
#[rustfmt::skip]
pub const DAYS: &[&str] = &[
    "friday", "monday", "saturday", "sunday", "thursday", "tuesday", "wednesday",
];

/// Titles and honorifics that mark a person when they precede a name (lower case, no dot).
#[rustfmt::skip]
pub const TITLES: &[&str] = &[
    "adm", "admiral", "ambassador", "attorney", "attorney-general", "bishop", "brother", "capt",
    "captain", "cardinal", "chairman", "chairwoman", "chancellor", "chief", "cmdr", "col",
    "colonel", "commander", "commissioner", "commodore", "consul", "czar", "dame", "director",
    "dr", "emperor", "empress", "envoy", "excellency", "father", "gen", "general", "gov",
    "governor", "highness", "hon", "judge", "justice", "kaiser", "king", "lady", "lieutenant",
    "lord", "lt", "madame", "maj", "majesty", "major", "marshal", "mayor", "messrs", "minister",
    "miss", "monsieur", "mr", "mrs", "ms", "pope", "postmaster", "postmaster-general", "premier",
    "president", "prince", "princess", "prof", "professor", "queen", "rep", "representative",
    "rev", "reverend", "saint", "secretary", "secretary-general", "sen", "senator", "sergeant",
    "sgt", "shah", "sir", "sister", "speaker", "sultan", "tsar", "vice", "vice-president",
];

/// Abbreviations whose trailing dot never ends a sentence (lower case, no dot).
#[rustfmt::skip]
pub const ABBREVIATIONS: &[&str] = &[
    "adm", "apr", "aug", "bros", "capt", "cmdr", "co", "col", "corp", "dec", "dept", "dr", "feb",
    "ft", "gen", "gov", "hon", "inc", "jan", "jr", "jul", "jun", "lt", "ltd", "maj", "mar",
    "messrs", "mr", "mrs", "ms", "mt", "no", "nos", "nov", "oct", "prof", "rep", "rev", "sen",
    "sep", "sept", "sgt", "sr", "st", "vol", "vs",
];

/// Nationality adjectives and plurals, not entities by themselves.
#[rustfmt::skip]
pub const DEMONYMS: &[&str] = &[
    "afghan", "afghans", "african", "africans", "american", "americans", "arab", "arabs",
    "argentinian", "argentinians", "asian", "asians", "austrian", "austrians", "belgian",
    "belgians", "british", "briton", "britons", "canadian", "canadians", "catholic", "catholics",
    "chinese", "christian", "christians", "colored", "cuban", "cubans", "czech", "czechs", "dane",
    "danes", "danish", "democratic", "dutch", "eastern", "english", "englishman", "englishmen",
    "european", "europeans", "federalist", "filipino", "filipinos", "finnish", "french",
    "frenchman", "frenchmen", "german", "germans", "greek", "greeks", "hawaiian", "hawaiians",
    "hispanic", "hispanics", "honduran", "hondurans", "indian", "indians", "iranian", "iranians",
    "iraqi", "iraqis", "irish", "israeli", "israelis", "italian", "italians", "japanese", "jewish",
    "jews", "korean", "koreans", "latin", "latino", "latinos", "mexican", "mexicans", "muslim",
    "muslims", "negro", "negroes", "northeastern", "northern", "norwegian", "norwegians",
    "panamanian", "panamanians", "peruvian", "peruvians", "pole", "poles", "polish", "portuguese",
    "protestant", "protestants", "prussian", "prussians", "puerto-rican", "republican", "russian",
    "russians", "salvadoran", "salvadorans", "saudi", "saudis", "scots", "scottish", "southern",
    "southwestern", "soviet", "soviets", "spaniard", "spaniards", "spanish", "swede", "swedes",
    "swedish", "swiss", "turk", "turkish", "turks", "vietnamese", "welsh", "western", "yankee",
    "yankees",
];

/// Capitalised common nouns and adjectives that are not names when they stand alone.
#[rustfmt::skip]
pub const GENERIC_CAPS: &[&str] = &[
    "act", "acts", "address", "administration", "administrations", "agencies", "agency",
    "agricultural", "agriculture", "alliance", "allied", "amendment", "amendments", "article",
    "articles", "black", "board", "boards", "budget", "bureau", "bureaus", "capital", "central",
    "century", "chamber", "chambers", "charter", "children", "commerce", "commission",
    "commissioner", "commissioners", "commissions", "committee", "committees", "communist",
    "communists", "confederate", "conference", "conferences", "congresses", "congressional",
    "congressmen", "constitutional", "continental", "convention", "conventions", "council",
    "countries", "country", "court", "courts", "defense", "department", "departments",
    "development", "district", "districts", "divine", "domestic", "economic", "education",
    "empire", "empires", "energy", "executive", "family", "federal", "first", "fiscal", "food",
    "foreign", "general", "good", "government", "governments", "governors", "great", "gulf",
    "health", "houses", "imperial", "interior", "island", "islands", "isthmus", "jobs", "judicial",
    "justice", "kingdom", "kingdoms", "labor", "lakes", "legislation", "legislative",
    "legislature", "legislatures", "member", "members", "message", "messages", "middle",
    "military", "nation", "national", "nations", "nations'", "naval", "new", "office", "offices",
    "parties", "party", "peace", "people", "power", "powers", "presidency", "presidential",
    "presidents", "production", "progress", "province", "provinces", "public", "representatives",
    "republic", "republics", "revolutionary", "river", "rivers", "science", "second", "section",
    "senators", "service", "services", "session", "sessions", "social", "sovereign", "state",
    "states", "supreme", "tax", "territorial", "territories", "territory", "third", "total",
    "transportation", "treaties", "treaty", "united", "veterans", "war", "wars", "welfare",
    "white", "women", "world",
];

/// Question words and imperative verbs that begin queries and are not names.
#[rustfmt::skip]
pub const QUERY_VERBS: &[&str] = &[
    "according", "analyse", "analyze", "are", "can", "compare", "considering", "could", "define",
    "describe", "did", "discuss", "do", "does", "explain", "find", "give", "how", "how's",
    "identify", "is", "list", "may", "might", "must", "name", "outline", "please", "provide",
    "shall", "should", "show", "summarise", "summarize", "tell", "was", "were", "what", "what's",
    "when", "where", "where's", "which", "who", "who's", "whom", "whose", "why", "will", "would",
];

/// Vague nouns that do not make a concept phrase.
#[rustfmt::skip]
pub const GENERIC_NOUNS: &[&str] = &[
    "amount", "amounts", "attention", "beginning", "billion", "billions", "case", "cases", "cent",
    "consideration", "day", "days", "deal", "degree", "dollar", "dollars", "eight", "end",
    "extent", "fact", "facts", "fellow", "first", "five", "four", "future", "hand", "hope",
    "hopes", "hundred", "hundreds", "instance", "kind", "kinds", "lot", "lots", "manner", "matter",
    "matters", "means", "million", "millions", "month", "months", "nine", "number", "numbers",
    "occasion", "occasions", "one", "opinion", "opinions", "order", "part", "parts", "past", "per",
    "period", "periods", "place", "point", "present", "regard", "respect", "second", "session",
    "sessions", "seven", "side", "six", "sort", "sorts", "subject", "subjects", "ten", "thing",
    "things", "third", "thousand", "thousands", "three", "time", "times", "trillion", "twenty",
    "two", "view", "way", "ways", "week", "weeks", "year", "years",
];

/// Very common verbs that break concept phrases.
#[rustfmt::skip]
pub const COMMON_VERBS: &[&str] = &[
    "am", "are", "ask", "asked", "be", "became", "become", "becomes", "been", "being", "believe",
    "believed", "believes", "came", "can", "cannot", "come", "comes", "continue", "continued",
    "continues", "could", "did", "do", "does", "done", "find", "finds", "found", "gave", "get",
    "gets", "give", "given", "gives", "go", "goes", "gone", "got", "had", "has", "have", "having",
    "hope", "hoped", "is", "keep", "keeps", "kept", "knew", "know", "known", "knows", "made",
    "make", "makes", "making", "may", "might", "must", "need", "needed", "needs", "recommend",
    "recommended", "require", "required", "requires", "saw", "see", "seem", "seemed", "seems",
    "seen", "sees", "shall", "should", "take", "taken", "takes", "think", "thinks", "thought",
    "took", "was", "went", "were", "will", "wish", "wished", "would",
];

/// Irregular past forms and participles, which name the link between two entities ("born",
/// "wrote", "led"); regular ones are recognised by their "-ed".
pub const IRREGULAR_VERBS: &[&str] = &[
    "arose",
    "ate",
    "awoke",
    "beat",
    "beaten",
    "became",
    "began",
    "begun",
    "bent",
    "bet",
    "bit",
    "bitten",
    "bled",
    "blew",
    "blown",
    "bore",
    "born",
    "borne",
    "bought",
    "broke",
    "broken",
    "brought",
    "built",
    "burnt",
    "caught",
    "chose",
    "chosen",
    "clung",
    "dove",
    "drank",
    "drawn",
    "drew",
    "driven",
    "drove",
    "drunk",
    "dug",
    "eaten",
    "fallen",
    "fed",
    "fell",
    "felt",
    "fled",
    "flew",
    "flown",
    "forbade",
    "forbidden",
    "forgave",
    "forgiven",
    "forsook",
    "fought",
    "froze",
    "frozen",
    "gave",
    "given",
    "grew",
    "grown",
    "held",
    "hid",
    "hidden",
    "hit",
    "hung",
    "hurt",
    "kept",
    "knelt",
    "knew",
    "known",
    "laid",
    "lain",
    "lay",
    "led",
    "left",
    "lent",
    "lit",
    "lost",
    "made",
    "meant",
    "met",
    "overcame",
    "overthrew",
    "overthrown",
    "paid",
    "put",
    "quit",
    "ran",
    "rang",
    "ridden",
    "risen",
    "rode",
    "rose",
    "rung",
    "said",
    "sang",
    "sank",
    "sat",
    "saw",
    "seen",
    "sent",
    "set",
    "shaken",
    "shook",
    "shot",
    "showed",
    "shown",
    "shut",
    "slain",
    "slew",
    "slid",
    "sold",
    "sought",
    "spent",
    "split",
    "spoke",
    "spoken",
    "sprang",
    "spread",
    "spun",
    "stole",
    "stolen",
    "stood",
    "strove",
    "struck",
    "stung",
    "sung",
    "sunk",
    "swam",
    "swept",
    "swore",
    "sworn",
    "swung",
    "taken",
    "taught",
    "thought",
    "threw",
    "thrown",
    "told",
    "took",
    "tore",
    "torn",
    "understood",
    "undertaken",
    "undertook",
    "upheld",
    "wed",
    "wept",
    "won",
    "wore",
    "worn",
    "wound",
    "wove",
    "woven",
    "written",
    "wrote",
];

/// Words ending in "-ed" that are not verbs.
pub const NOT_VERBS: &[&str] = &[
    "bearded", "beloved", "bred", "ceased", "hundred", "indeed", "kindred", "naked", "ragged", "rugged", "sacred",
    "united", "wicked", "wretched",
];

/// Prepositions: what links two entities when no verb does ("in", "of"), or completes a verb
/// ("directed by", "born in").
pub const PREPOSITIONS: &[&str] = &[
    "aboard",
    "about",
    "above",
    "across",
    "after",
    "against",
    "along",
    "amid",
    "among",
    "around",
    "as",
    "at",
    "before",
    "behind",
    "below",
    "beneath",
    "beside",
    "besides",
    "between",
    "beyond",
    "by",
    "despite",
    "during",
    "for",
    "from",
    "in",
    "inside",
    "into",
    "near",
    "of",
    "off",
    "on",
    "onto",
    "opposite",
    "outside",
    "over",
    "past",
    "per",
    "since",
    "through",
    "throughout",
    "to",
    "toward",
    "towards",
    "under",
    "underneath",
    "until",
    "unto",
    "upon",
    "via",
    "with",
    "within",
    "without",
];

/// Whether the sorted `list` holds `word` (already lower-cased).
///
/// A binary search with an inlined byte comparison: the words are short, so this is much
/// cheaper than calling `memcmp` at every step.
pub fn contains(list: &[&str], word: &str) -> bool {
    let w = word.as_bytes();
    list.binary_search_by(|probe| cmp_bytes(probe.as_bytes(), w)).is_ok()
}

#[inline]
fn cmp_bytes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Lower-cases a word and maps typographic apostrophes to `'`, for list lookups.
pub fn lower(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    word.chars().flat_map(char::to_lowercase).map(|c| if c == '’' { '\'' } else { c }).collect()
}

/// [`STOP_WORDS`] as a hash set, built at compile time.
static STOP_SET: WordSet<1024> = WordSet::new(STOP_WORDS);
/// [`COMMON_VERBS`] as a hash set.
static COMMON_VERB_SET: WordSet<256> = WordSet::new(COMMON_VERBS);
/// [`GENERIC_NOUNS`] as a hash set.
static GENERIC_NOUN_SET: WordSet<256> = WordSet::new(GENERIC_NOUNS);
/// [`NON_NAME_CAPS`] as a hash set.
static NON_NAME_SET: WordSet<256> = WordSet::new(NON_NAME_CAPS);

/// Whether a lower-cased word is a stop-word (closed-class or very common word).
pub fn is_stop(lower: &str) -> bool {
    STOP_SET.contains(lower)
}

/// Whether a lower-cased word is a very common verb (breaks concept phrases).
pub fn is_common_verb(lower: &str) -> bool {
    COMMON_VERB_SET.contains(lower)
}

/// Whether a lower-cased word is a vague noun (breaks concept phrases).
pub fn is_generic_noun(lower: &str) -> bool {
    GENERIC_NOUN_SET.contains(lower)
}

/// Whether a lower-cased word is a capitalised non-name (salutation, discourse word).
pub fn is_non_name_cap(lower: &str) -> bool {
    NON_NAME_SET.contains(lower)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gazetteer;

    #[test]
    fn every_list_is_sorted_lowercase_and_unique() {
        let lists: &[(&str, &[&str])] = &[
            ("STOP_WORDS", STOP_WORDS),
            ("NON_NAME_CAPS", NON_NAME_CAPS),
            ("CONNECTORS", CONNECTORS),
            ("MONTHS", MONTHS),
            ("DAYS", DAYS),
            ("TITLES", TITLES),
            ("ABBREVIATIONS", ABBREVIATIONS),
            ("DEMONYMS", DEMONYMS),
            ("QUERY_VERBS", QUERY_VERBS),
            ("GENERIC_CAPS", GENERIC_CAPS),
            ("GENERIC_NOUNS", GENERIC_NOUNS),
            ("COMMON_VERBS", COMMON_VERBS),
            ("IRREGULAR_VERBS", IRREGULAR_VERBS),
            ("NOT_VERBS", NOT_VERBS),
            ("PREPOSITIONS", PREPOSITIONS),
            ("COUNTRIES", gazetteer::COUNTRIES),
            ("US_STATES", gazetteer::US_STATES),
            ("PLACES", gazetteer::PLACES),
            ("FIRST_NAMES", gazetteer::FIRST_NAMES),
            ("ORG_HEADS", gazetteer::ORG_HEADS),
            ("LOCATION_HEADS", gazetteer::LOCATION_HEADS),
            ("LOCATION_PREFIXES", gazetteer::LOCATION_PREFIXES),
            ("EVENT_HEADS", gazetteer::EVENT_HEADS),
        ];
        for (name, list) in lists {
            for pair in list.windows(2) {
                assert!(pair[0] < pair[1], "{name}: '{}' must sort before '{}'", pair[0], pair[1]);
            }
            for w in *list {
                assert_eq!(*w, lower(w), "{name}: '{w}' must be lower case");
            }
        }
    }

    #[test]
    fn hash_sets_match_their_lists() {
        type Lookup = fn(&str) -> bool;
        let sets: &[(&[&str], Lookup)] = &[
            (STOP_WORDS, is_stop),
            (COMMON_VERBS, is_common_verb),
            (GENERIC_NOUNS, is_generic_noun),
            (NON_NAME_CAPS, is_non_name_cap),
        ];
        for (list, lookup) in sets {
            for w in *list {
                assert!(lookup(w), "{w}");
            }
        }
        for w in ["lincoln", "", "congress", "thee-", "the "] {
            assert!(!is_stop(w), "{w}");
        }
    }

    #[test]
    fn lookups() {
        assert!(is_stop("however"));
        assert!(!is_stop("lincoln"));
        assert!(contains(MONTHS, "july"));
        assert_eq!(lower("Washington’s"), "washington's");
    }
}
