// Whether a variable's name says its value is a secret (§12: "whose name looks secret"), by the words of the name.

/** Words that make a name secret wherever they appear, also run into other words: PGPASSWORD, GITHUBTOKEN. */
const LONG_WORDS = ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATEKEY", "APIKEY"];

/**
 * Words that make a name secret only as a whole word of it: inside other words they are innocent
 * (MONKEY, KEYBOARD, PASSENGER, OLDPWD, PATH, AUTHOR). Kept to words a person would call secret: a
 * value is masked wherever it appears, so a harmless short value (`basic`, `1`) would hide output.
 */
const SHORT_WORDS = new Set(["KEY", "KEYS", "PASS", "PWD", "PAT", "AUTH", "AUTHORIZATION", "COOKIE", "COOKIES", "CREDS", "JWT", "BEARER", "DSN"]);

/**
 * A word that ends in KEY or KEYS is a key run into the word it keys (MASTERKEY, ACCESSKEY, SSHKEY, LICENSEKEY), unless
 * it is one of these words: wrongly masking a harmless value hides output, wrongly not masking a key leaks it, so the
 * exceptions are a closed list of words that are surely no key.
 */
const NOT_KEYS = new Set(["MONKEY", "DONKEY", "TURKEY", "HOCKEY", "JOCKEY", "WHISKEY", "LACKEY", "HOTKEY", "TURNKEY"]);

function endsInKey(word: string): boolean {
  const stem = word.endsWith("KEYS") ? word.slice(0, -1) : word;
  return stem.endsWith("KEY") && !NOT_KEYS.has(stem);
}

/**
 * The words of a name: split at `_`, `-`, `.` and where a lower-case letter meets an upper-case one
 * (apiKey), upper-cased.
 */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .split(/[_.-]+/)
    .filter((w) => w !== "")
    .map((w) => w.toUpperCase());
}

/**
 * Whether the value of a variable so named is a secret: a word of the name is one of SHORT_WORDS or ends in KEY
 * (endsInKey), or the name holds one of LONG_WORDS anywhere. `PWD` alone is the working directory, not a password.
 */
export function isSecretName(name: string): boolean {
  const parts = words(name);
  if (parts.length === 1 && parts[0] === "PWD") return false;
  const joined = parts.join("");
  return parts.some((w) => SHORT_WORDS.has(w) || endsInKey(w)) || LONG_WORDS.some((w) => joined.includes(w));
}
