//! Small embedded gazetteers (places, given names) and type-cue word lists. Each list is sorted
//! and de-duplicated (checked by a test) so lookups binary-search.

/// Countries, historical states and their common short names (lower case).
#[rustfmt::skip]
pub const COUNTRIES: &[&str] = &[
    "afghanistan", "alaska", "albania", "algeria", "algiers", "america", "angola", "argentina",
    "armenia", "australia", "austria", "austria-hungary", "azerbaijan", "bahamas", "bangladesh",
    "barbados", "bavaria", "belarus", "belgium", "bolivia", "bosnia", "brazil", "britain",
    "brunswick", "bulgaria", "burma", "cambodia", "cameroon", "canada", "chile", "chili", "china",
    "colombia", "congo", "costa rica", "croatia", "cuba", "cyprus", "czech republic",
    "czechoslovakia", "denmark", "dominican republic", "ecuador", "egypt", "el salvador",
    "england", "estonia", "ethiopia", "finland", "florida", "formosa", "france", "georgia",
    "germany", "ghana", "great britain", "greece", "grenada", "guam", "guatemala", "haiti",
    "hanover", "hawaii", "hawaiian islands", "hayti", "holland", "honduras", "hungary", "iceland",
    "india", "indonesia", "iran", "iraq", "ireland", "israel", "italy", "jamaica", "japan",
    "jordan", "kenya", "kingdom of hawaii", "korea", "kosovo", "kuwait", "laos", "latvia",
    "lebanon", "liberia", "libya", "lithuania", "louisiana", "luxembourg", "macedonia",
    "madagascar", "malaysia", "manchuria", "mexico", "moldova", "mongolia", "montenegro",
    "morocco", "mozambique", "myanmar", "naples", "nepal", "netherlands", "new granada",
    "new zealand", "nicaragua", "niger", "nigeria", "north korea", "norway", "ottoman empire",
    "pakistan", "palestine", "panama", "paraguay", "persia", "peru", "philippine islands",
    "philippines", "poland", "porto rico", "portugal", "prussia", "puerto rico", "qatar",
    "romania", "roumania", "russia", "russian empire", "rwanda", "samoa", "san domingo",
    "santo domingo", "sardinia", "saudi arabia", "saxony", "scotland", "senegal", "serbia", "siam",
    "sicily", "singapore", "slovakia", "slovenia", "somalia", "south africa", "south korea",
    "soviet union", "spain", "sudan", "sweden", "switzerland", "syria", "taiwan", "tanzania",
    "texas", "thailand", "the netherlands", "tripoli", "tunis", "tunisia", "turkey", "u.s.",
    "u.s.a.", "uganda", "ukraine", "united kingdom", "united states", "united states of america",
    "uruguay", "usa", "ussr", "venezuela", "viet-nam", "vietnam", "wales", "yemen", "yugoslavia",
    "zimbabwe",
];

/// US states, territories and their capitals or major cities (lower case).
#[rustfmt::skip]
pub const US_STATES: &[&str] = &[
    "alabama", "albany", "annapolis", "arizona", "arkansas", "atlanta", "austin", "baltimore",
    "boston", "brooklyn", "buffalo", "california", "carolina", "charleston", "chesapeake",
    "chicago", "cincinnati", "cleveland", "colorado", "connecticut", "dakota", "dallas",
    "delaware", "denver", "detroit", "district of columbia", "florida", "georgia", "gettysburg",
    "harpers ferry", "honolulu", "houston", "idaho", "illinois", "indian territory", "indiana",
    "iowa", "juneau", "kansas", "kentucky", "key west", "long island", "los angeles", "louisiana",
    "maine", "manhattan", "maryland", "massachusetts", "memphis", "miami", "michigan", "milwaukee",
    "minnesota", "mississippi", "missouri", "mobile", "montana", "nashville", "nebraska", "nevada",
    "new england", "new hampshire", "new jersey", "new mexico", "new orleans", "new york",
    "norfolk", "north carolina", "north dakota", "northwest territory", "ohio", "oklahoma",
    "omaha", "oregon", "pearl harbor", "pennsylvania", "philadelphia", "pittsburgh", "portland",
    "puget sound", "rhode island", "richmond", "sacramento", "saint louis", "salt lake city",
    "san francisco", "santa fe", "savannah", "seattle", "sitka", "south carolina", "south dakota",
    "st. louis", "tennessee", "texas", "utah", "vermont", "virginia", "west virginia", "wisconsin",
    "wyoming", "yorktown",
];

/// Continents, regions, seas and world cities (lower case).
#[rustfmt::skip]
pub const PLACES: &[&str] = &[
    "acapulco", "africa", "aleutian islands", "alleghany mountains", "amazon", "americas",
    "amsterdam", "antarctica", "appalachian", "arctic", "asia", "athens", "atlantic", "australia",
    "baghdad", "balkans", "baltic", "basra", "behring sea", "beijing", "belgrade", "bering sea",
    "berlin", "bogota", "bombay", "bosnia-herzegovina", "brussels", "budapest", "buenos aires",
    "cairo", "calcutta", "canton", "cape town", "caracas", "caribbean", "central america",
    "constantinople", "copenhagen", "crimea", "cuba", "danube", "darfur", "delhi", "dublin",
    "east", "east asia", "east indies", "eastern hemisphere", "edinburgh", "europe", "fallujah",
    "far east", "fort mchenry", "fort sumter", "gaza", "geneva", "ghent", "golan", "great lakes",
    "guam", "gulf of mexico", "hague", "haiti", "hanoi", "havana", "hawaiian islands", "helsinki",
    "hiroshima", "hong kong", "indian country", "istanbul", "isthmus of panama", "iwo jima",
    "jerusalem", "johannesburg", "kabul", "kandahar", "kiev", "klondike", "kyiv", "latin america",
    "lima", "lisbon", "london", "louisiana territory", "madrid", "manila", "matamoros",
    "mediterranean", "mexican territory", "mexico city", "middle east", "midway", "midwest",
    "mississippi river", "missouri river", "mogadishu", "monterey", "monterrey", "moscow", "mosul",
    "nagasaki", "nairobi", "near east", "new world", "nile", "normandy", "north", "north america",
    "oceania", "ohio river", "okinawa", "old world", "oregon territory", "oslo", "ottawa",
    "pacific", "pago pago", "panama canal", "panama city", "paris", "peking", "persian gulf",
    "philippine islands", "potomac", "potsdam", "prague", "pretoria", "puerto rico", "rhine",
    "rio de janeiro", "rio grande", "rocky mountains", "rome", "saigon", "samoa", "san juan",
    "sandwich islands", "santiago", "sarajevo", "seoul", "shanghai", "siberia", "sinai", "south",
    "south america", "southeast asia", "st. petersburg", "stockholm", "suez canal", "tampico",
    "tehran", "texas", "the americas", "the hague", "tokyo", "tutuila", "valley forge",
    "vera cruz", "veracruz", "verdun", "versailles", "vienna", "wake island", "warsaw", "west",
    "west bank", "west indies", "western hemisphere", "yalta", "yangtze", "yukon",
];

/// Common English given names (lower case).
#[rustfmt::skip]
pub const FIRST_NAMES: &[&str] = &[
    "aaron", "abigail", "abraham", "adam", "adlai", "albert", "alexander", "alfred", "alice",
    "allen", "alvin", "amanda", "amy", "andrew", "andy", "ann", "anna", "anne", "anthony",
    "arthur", "barack", "barbara", "ben", "benjamin", "bernard", "betty", "bill", "billy", "bob",
    "bobby", "brian", "calvin", "carl", "carol", "caroline", "catherine", "charles", "charlie",
    "chester", "christopher", "clara", "colin", "condoleezza", "daniel", "david", "deborah",
    "dennis", "dick", "dolley", "donald", "doris", "dorothy", "douglas", "dwight", "earl", "edgar",
    "edith", "edward", "edwin", "eleanor", "elizabeth", "ellen", "emily", "emma", "eric", "ernest",
    "eugene", "frances", "francis", "frank", "franklin", "fred", "frederick", "gary", "george",
    "gerald", "gordon", "grace", "grover", "harold", "harriet", "harry", "helen", "henry",
    "herbert", "hillary", "howard", "hubert", "ida", "isaac", "jack", "jacob", "james", "jane",
    "janet", "jason", "jean", "jefferson", "jennifer", "jerry", "jesse", "jim", "jimmy", "joan",
    "joe", "john", "johnny", "jonathan", "joseph", "joshua", "judith", "julia", "karen", "kate",
    "katherine", "kathleen", "keith", "kenneth", "kevin", "larry", "laura", "lawrence", "leonard",
    "lewis", "lincoln", "linda", "lisa", "louis", "louise", "lucy", "lydia", "lyndon", "madeleine",
    "margaret", "maria", "marie", "mark", "martha", "martin", "mary", "matthew", "michael",
    "michelle", "millard", "nancy", "nathan", "nathaniel", "nelson", "nicholas", "nora", "oliver",
    "pamela", "patricia", "patrick", "paul", "peter", "philip", "rachel", "ralph", "raymond",
    "rebecca", "richard", "robert", "roger", "ronald", "rosa", "rose", "russell", "ruth",
    "rutherford", "sally", "samuel", "sandra", "sarah", "scott", "sharon", "stephen", "steven",
    "susan", "theodore", "thomas", "timothy", "ulysses", "victoria", "virginia", "walter",
    "warren", "wesley", "william", "willie", "winfield", "winston", "woodrow", "zachary",
];

/// Words that make a capitalised phrase an organization (lower case).
#[rustfmt::skip]
pub const ORG_HEADS: &[&str] = &[
    "academy", "administration", "afl-cio", "agencies", "agency", "armies", "army", "assembly",
    "association", "associations", "authority", "bank", "banks", "board", "boards", "bureau",
    "bureaus", "cabinet", "cbo", "church", "churches", "cia", "club", "college", "colleges",
    "commission", "commissions", "committee", "committees", "companies", "company", "congress",
    "cooperative", "corporation", "corporations", "corps", "council", "councils", "court",
    "courts", "democrats", "department", "departments", "directory", "epa", "fbi", "fcc", "fda",
    "fdic", "federalists", "federation", "fema", "force", "forces", "foundation", "ftc", "fund",
    "gao", "government", "governments", "guard", "hamas", "hezbollah", "house", "imf", "inc",
    "incorporated", "institute", "institution", "institutions", "irs", "isis", "league",
    "legislature", "legislatures", "marine", "marines", "ministry", "mint", "nasa", "nations",
    "nato", "navies", "navy", "nih", "office", "omb", "opec", "organisation", "organization",
    "parliament", "parties", "party", "post-office", "qaeda", "qaida", "railroad", "railway",
    "railways", "republicans", "reserve", "school", "schools", "seato", "senate", "service",
    "services", "societies", "society", "staff", "taliban", "treasury", "tribunal", "trust", "tva",
    "u.n.", "union", "unions", "universities", "university", "whigs", "wto",
];

/// Final words that make a capitalised phrase a location (lower case).
#[rustfmt::skip]
pub const LOCATION_HEADS: &[&str] = &[
    "avenue", "basin", "bay", "borough", "canal", "canyon", "city", "coast", "colonies", "colony",
    "continent", "counties", "county", "creek", "delta", "desert", "district", "dominion",
    "empire", "falls", "gulf", "harbor", "harbour", "hemisphere", "highway", "hills", "island",
    "islands", "isles", "isthmus", "kingdom", "lake", "lakes", "mountain", "mountains", "ocean",
    "oceans", "park", "peninsula", "plains", "port", "province", "provinces", "republic",
    "reservation", "reservations", "river", "rivers", "road", "sea", "seas", "sound", "square",
    "state", "states", "strait", "straits", "street", "territories", "territory", "township",
    "valley", "village",
];

/// First words that make a capitalised phrase a location (lower case).
#[rustfmt::skip]
pub const LOCATION_PREFIXES: &[&str] = &[
    "cape", "east", "fort", "ft", "gulf", "isthmus", "lake", "las", "los", "lower", "mount", "mt",
    "new", "north", "port", "san", "santa", "south", "st", "upper", "west",
];

/// Words that make a capitalised phrase an event (lower case).
#[rustfmt::skip]
pub const EVENT_HEADS: &[&str] = &[
    "accord", "accords", "act", "acts", "agreement", "amendment", "amendments", "armistice",
    "battle", "bill", "blockade", "campaign", "compromise", "conference", "conferences",
    "convention", "conventions", "crisis", "deal", "declaration", "depression", "doctrine",
    "election", "elections", "embargo", "exhibition", "expedition", "exposition", "initiative",
    "insurrection", "invasion", "massacre", "olympics", "pact", "plan", "proclamation", "program",
    "programme", "purchase", "raid", "rebellion", "recession", "revolution", "siege", "summit",
    "tariff", "treaties", "treaty", "war", "wars",
];
