//! Closed word lists: stop-words, titles, connectors, months, demonyms. Each list is sorted and
//! de-duplicated (checked by a test) so lookups binary-search.


/// Closed-class and very common words that never start or end a name (lower case).
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "across", "after", "afterwards", "again", "against", "ah", "all",
    "almost", "alone", "along", "already", "also", "although", "always", "am", "among", "amongst",
    "an", "and", "another", "any", "anybody", "anyhow", "anyone", "anything", "anyway", "anywhere",
    "are", "aren't", "around", "as", "at", "be", "became", "because", "become", "becomes",
    "becoming", "been", "before", "beforehand", "behind", "being", "below", "beside", "besides",
    "between", "beyond", "both", "but", "by", "can", "can't", "cannot", "could", "couldn't", "did",
    "didn't", "do", "does", "doesn't", "doing", "don't", "done", "down", "during", "each",
    "either", "else", "elsewhere", "enough", "especially", "etc", "even", "ever", "every",
    "everybody", "everyone", "everything", "everywhere", "except", "few", "first", "for", "former",
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
    "rather", "said", "same", "say", "says", "second", "several", "shall", "she", "she'd",
    "she'll", "she's", "should", "shouldn't", "since", "so", "some", "somehow", "someone",
    "something", "sometime", "sometimes", "somewhat", "somewhere", "still", "such", "than",
    "thank", "thanks", "that", "that's", "the", "thee", "their", "theirs", "them", "themselves",
    "then", "thence", "there", "there's", "thereafter", "thereby", "therefore", "therein",
    "thereof", "thereon", "therewith", "these", "they", "they'd", "they'll", "they're", "they've",
    "thine", "third", "this", "those", "thou", "though", "through", "throughout", "thus", "thy",
    "to", "today", "together", "tomorrow", "tonight", "too", "toward", "towards", "under",
    "unless", "unlike", "until", "unto", "up", "upon", "us", "very", "via", "was", "wasn't", "we",
    "we'd", "we'll", "we're", "we've", "well", "were", "weren't", "what", "what's", "whatever",
    "when", "whence", "whenever", "where", "whereas", "whereby", "wherein", "whereof", "wherewith",
    "whether", "which", "while", "whither", "who", "whoever", "whole", "whom", "whose", "why",
    "will", "with", "within", "without", "won't", "would", "wouldn't", "ye", "yes", "yesterday",
    "yet", "you", "you'd", "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves",
];

/// Capitalised words that are sentence starters, salutations or discourse words, never names by themselves.
pub const NON_NAME_CAPS: &[&str] = &[
    "accordingly", "additionally", "afterward", "altogether", "amen", "and", "anyhow", "anyway",
    "apart", "applause", "appropriately", "besides", "but", "certainly", "citizens", "clearly",
    "consequently", "currently", "dear", "equally", "eventually", "evidently", "fellow",
    "fellow-americans", "fellow-citizen", "fellow-citizens", "finally", "firstly", "fortunately",
    "generally", "gentlemen", "happily", "here", "honorable", "hopefully", "however", "ideally",
    "importantly", "incidentally", "initially", "ladies", "lastly", "later", "laughter", "let",
    "likewise", "madam", "naturally", "no", "nonetheless", "nor", "notwithstanding", "now",
    "obviously", "of-course", "or", "overall", "personally", "plainly", "possibly", "presumably",
    "previously", "probably", "recently", "regrettably", "respectfully", "secondly", "similarly",
    "simply", "sincerely", "sir", "so", "specifically", "subsequently", "surely", "then", "there",
    "thereupon", "thirdly", "thus", "today", "together", "tonight", "truly", "ultimately",
    "undoubtedly", "unfortunately", "us", "whereupon", "yes", "yet",
];

/// Lower-case words allowed inside a name between capitalised words.
pub const CONNECTORS: &[&str] = &[
    "and", "da", "de", "del", "della", "den", "der", "des", "di", "du", "for", "la", "le", "of",
    "the", "upon", "van", "von", "y",
];

/// Month names (lower case).
pub const MONTHS: &[&str] = &[
    "apr", "april", "aug", "august", "dec", "december", "feb", "february", "jan", "january", "jul",
    "july", "jun", "june", "mar", "march", "may", "nov", "november", "oct", "october", "sep",
    "sept", "september",
];

/// Weekday names (lower case).
pub const DAYS: &[&str] = &[
    "friday", "monday", "saturday", "sunday", "thursday", "tuesday", "wednesday",
];

/// Titles and honorifics that mark a person when they precede a name (lower case, no dot).
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
pub const ABBREVIATIONS: &[&str] = &[
    "adm", "apr", "aug", "bros", "capt", "cmdr", "co", "col", "corp", "dec", "dept", "dr", "feb",
    "ft", "gen", "gov", "hon", "inc", "jan", "jr", "jul", "jun", "lt", "ltd", "maj", "mar",
    "messrs", "mr", "mrs", "ms", "mt", "no", "nos", "nov", "oct", "prof", "rep", "rev", "sen",
    "sep", "sept", "sgt", "sr", "st", "vol", "vs",
];

/// Nationality adjectives and plurals, not entities by themselves.
pub const DEMONYMS: &[&str] = &[
    "afghan", "afghans", "african", "africans", "american", "americans", "arab", "arabs", "asian",
    "asians", "austrian", "austrians", "british", "briton", "britons", "canadian", "canadians",
    "catholic", "catholics", "chinese", "christian", "christians", "colored", "cuban", "cubans",
    "democratic", "dutch", "eastern", "english", "englishman", "englishmen", "european",
    "europeans", "federalist", "filipino", "filipinos", "french", "frenchman", "frenchmen",
    "german", "germans", "greek", "greeks", "hawaiian", "hawaiians", "hispanic", "hispanics",
    "indian", "indians", "iranian", "iranians", "iraqi", "iraqis", "irish", "israeli", "israelis",
    "italian", "italians", "japanese", "jewish", "jews", "korean", "koreans", "latin", "mexican",
    "mexicans", "muslim", "muslims", "negro", "negroes", "northeastern", "northern", "portuguese",
    "protestant", "protestants", "prussian", "prussians", "puerto-rican", "republican", "russian",
    "russians", "scots", "scottish", "southern", "southwestern", "soviet", "soviets", "spaniard",
    "spaniards", "spanish", "swedish", "swiss", "turk", "turkish", "turks", "vietnamese",
    "western",
];

/// Capitalised common nouns and adjectives that are not names when they stand alone.
pub const GENERIC_CAPS: &[&str] = &[
    "act", "acts", "administration", "administrations", "agencies", "agency", "amendment",
    "amendments", "board", "boards", "budget", "bureau", "bureaus", "capital", "central",
    "chamber", "commission", "commissioner", "commissioners", "commissions", "committee",
    "committees", "communist", "communists", "confederate", "conference", "conferences",
    "congressional", "constitutional", "continental", "convention", "conventions", "council",
    "countries", "country", "court", "courts", "department", "departments", "district",
    "districts", "domestic", "empire", "empires", "executive", "federal", "foreign", "general",
    "good", "government", "governments", "governors", "gulf", "houses", "island", "islands",
    "isthmus", "judicial", "kingdom", "kingdoms", "lakes", "legislative", "legislature",
    "legislatures", "member", "members", "message", "messages", "military", "nation", "national",
    "nations", "nations'", "naval", "office", "offices", "parties", "party", "people",
    "presidency", "presidential", "presidents", "province", "provinces", "public",
    "representatives", "republic", "republics", "revolution", "revolutionary", "river", "rivers",
    "senators", "service", "services", "state", "states", "territorial", "territories",
    "territory", "treaties", "treaty", "union's", "war", "wars", "world",
];

/// Question words and imperative verbs that begin queries and are not names.
pub const QUERY_VERBS: &[&str] = &[
    "according", "analyse", "analyze", "are", "can", "compare", "considering", "could", "define",
    "describe", "did", "discuss", "do", "does", "explain", "find", "give", "how", "how's",
    "identify", "is", "list", "may", "might", "must", "name", "outline", "please", "provide",
    "shall", "should", "show", "summarise", "summarize", "tell", "was", "were", "what", "what's",
    "when", "where", "where's", "which", "who", "who's", "whom", "whose", "why", "will", "would",
];

/// Vague nouns that do not make a concept phrase.
pub const GENERIC_NOUNS: &[&str] = &[
    "amount", "amounts", "attention", "beginning", "billion", "billions", "case", "cases", "cent",
    "consideration", "day", "days", "deal", "degree", "dollar", "dollars", "eight", "end",
    "extent", "fact", "facts", "fellow", "five", "four", "future", "hand", "hope", "hopes",
    "hundred", "hundreds", "instance", "kind", "kinds", "lot", "lots", "manner", "matter",
    "matters", "means", "million", "millions", "month", "months", "nine", "number", "numbers",
    "occasion", "occasions", "one", "opinion", "opinions", "order", "part", "parts", "past", "per",
    "period", "periods", "place", "point", "present", "regard", "respect", "session", "sessions",
    "seven", "side", "six", "sort", "sorts", "subject", "subjects", "ten", "thing", "things",
    "thousand", "thousands", "three", "time", "times", "trillion", "twenty", "two", "view", "way",
    "ways", "week", "weeks", "year", "years",
];

/// Very common verbs that break concept phrases.
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

/// Whether the sorted `list` holds `word` (already lower-cased).
pub fn contains(list: &[&str], word: &str) -> bool {
    list.binary_search(&word).is_ok()
}

/// Lower-cases a word and maps typographic apostrophes to `'`, for list lookups.
pub fn lower(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    word.chars().flat_map(char::to_lowercase).map(|c| if c == '’' { '\'' } else { c }).collect()
}

/// Whether a lower-cased word is a stop-word (closed-class or very common word).
pub fn is_stop(lower: &str) -> bool {
    contains(STOP_WORDS, lower)
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
    fn lookups() {
        assert!(is_stop("however"));
        assert!(!is_stop("lincoln"));
        assert!(contains(MONTHS, "july"));
        assert_eq!(lower("Washington’s"), "washington's");
    }
}
