// Whether a variable's name says its value is a secret (§12: "whose name looks secret"), by the words of the name.

/** Words that make a name secret wherever they appear, also run into other words: PGPASSWORD, GITHUBTOKEN. */
const LONG_WORDS = ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATEKEY", "APIKEY"];

/**
 * Words that make a name secret only as a whole word of it: inside other words they are innocent
 * (MONKEY, KEYBOARD, PASSENGER, OLDPWD, PATH, AUTHOR). Kept to words a person would call secret: a
 * value is masked wherever it appears, so a harmless short value (`basic`, `1`) would hide output.
 */
const SHORT_WORDS = new Set(["KEY", "KEYS", "PASS", "PWD", "PAT", "AUTH", "AUTHORIZATION", "COOKIE", "COOKIES", "CREDS", "JWT", "BEARER"]);

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
 * Whether the value of a variable so named is a secret: a word of the name is one of SHORT_WORDS, or the
 * name holds one of LONG_WORDS anywhere. `PWD` alone is the working directory, not a password.
 */
export function isSecretName(name: string): boolean {
  const parts = words(name);
  if (parts.length === 1 && parts[0] === "PWD") return false;
  const joined = parts.join("");
  return parts.some((w) => SHORT_WORDS.has(w)) || LONG_WORDS.some((w) => joined.includes(w));
}
