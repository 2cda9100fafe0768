"""Run-time settings: environment, an optional `.env`, then `config/bot.toml`, then defaults.

GitHub credentials use the usual `GITHUB_*` names, never read from `config/bot.toml`;
the bot's own options are `REVIEW_NOTES_<FIELD>`. Secrets are SecretStr (they print as
`**********`).
`load_settings()` turns every invalid or contradictory value into one
`SettingsError` whose lines name the variable to fix.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import difflib
import io
import os
import re
from collections.abc import Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any, Literal, Self, get_args
from urllib.parse import urlsplit

from dotenv.parser import Binding, parse_stream
from pydantic import (
    AliasChoices,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    InitSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from bot.config_files import (
    DEFAULT_MATCHING_FILE,
    DEFAULT_NOTES_DIR,
    DEFAULT_TOPICS_FILE,
    ROOT,
    ConfigError,
    ConfigFile,
    read_config,
)
from bot.note_files import Problem
from bot.toml_lines import first_lines

DEFAULT_BOT_TOML = ROOT / "config" / "bot.toml"
ENV_PREFIX = "REVIEW_NOTES_"
# Used only in dry run without GITHUB_WEBHOOK_SECRET (unset, empty or blank): nothing
# is written to GitHub then, and `review-notes replay` signs with it by default.
# Printed at start-up.
DEV_WEBHOOK_SECRET = "review-notes-dev-secret"
# The `.env` read: the working directory's, or none when _REVIEW_NOTES_TEST_NO_DOTENV is
# set (not empty), as the tests set it for the commands and servers they start in the
# checkout, where an operator's .env holds live credentials. A flag, not a path: no other
# .env can be named this way. Private, not a setting: no operator needs it, and a name
# outside REVIEW_NOTES_* is not warned about.
ENV_FILE: str | None = None if os.environ.get("_REVIEW_NOTES_TEST_NO_DOTENV") else ".env"

_OWNER = re.compile(r"^[A-Za-z0-9_-]+$")  # an account: letters, digits, '-' ('_': managed users)
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
# GITHUB_APP_ID: the App's ID, or its client ID ("Iv1.8a61f9b3a7aba766", "Iv23li...")
_APP_ID = re.compile(r"[0-9]{1,20}|Iv[0-9A-Za-z.]{1,40}")
# REVIEW_NOTES_BOT_LOGIN: an account's login (as _OWNER, not starting with '-'), an App's
# bot account's with "[bot]" after it
_LOGIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}(?:\[bot\])?")


# A repository's address on GitHub, as a browser or a clone shows it
_REPO_ADDRESS = re.compile(
    r"(?:[a-z+]+://)?(?:[^@/\s]+@)?(?:www\.)?github\.com[/:]([^/\s]+/[^/\s]+?)(?:\.git)?/?"
)


def _branch_problem(branch: str) -> str | None:
    """What `git check-ref-format --branch` refuses in `branch`, in words, if anything:
    a note link to such a branch leads nowhere (GitHub's branches are git's)."""
    if " " in branch:
        return "it holds a space"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in branch):
        return "it holds a control character"
    for part in ("..", "@{", "//", "~", "^", ":", "?", "*", "[", "\\"):
        if part in branch:
            return f"it holds '{part}'"
    if branch.startswith("/") or branch.endswith("/"):
        return "it starts or ends with '/'"
    parts = branch.split("/")
    if any(part.startswith(".") for part in parts):
        return "a part of it starts with '.'"
    if any(part.endswith(".lock") for part in parts):
        return "a part of it ends with '.lock'"
    if branch.endswith("."):
        return "it ends with '.'"
    if branch == "@":
        return "it is '@' alone"
    if branch.startswith("-"):
        return "it starts with '-'"
    return None


def _repo_problem(entry: str) -> str | None:
    """Why `entry` cannot be a repository's `full_name` on GitHub, if it cannot: the
    allow-list would then match nothing, every event answered "not on the allow-list"."""
    address = _REPO_ADDRESS.fullmatch(entry)
    if address and _repo_problem(address[1]) is None:  # what to write, when it is plain
        return f"a repository's address: write owner/name ({address[1]})"
    parts = re.split(r"[\s;]+", entry)
    if len(parts) > 1 and all("/" in part for part in parts):  # several on one line
        return "entries are separated by commas"
    owner, slash, name = entry.partition("/")
    if not slash or not owner or not name or "/" in name:
        return "not owner/name"
    if not _OWNER.match(owner):
        return "an account's name has only letters, digits, '-' and '_'"
    if name in (".", ".."):
        return "'.' and '..' are no repository's name"
    if not _NAME.match(name):
        return "a repository's name has only letters, digits, '.', '-' and '_'"
    if name.lower().endswith(".git"):  # a clone URL's tail; GitHub drops it from names
        return "drop the .git"
    return None


# settings given as comma-separated lists (or JSON) in the environment
_LISTS = ("repos", "files_recheck_delays")
# what surrounds an entry of such a list: blanks, JSON's quotes and brackets
_LIST_ITEM_EDGES = " \t\n\r\f\v\"'[]"


# settings whose empty value is not unset (config/bot.toml's, else the default): no
# opt-out label, never a files re-check, the note files at the repository's root; refused
# (a database or an allow-list is never guessed: the default would start afresh or answer
# elsewhere); the webhook secret's emptiness is named when posting to GitHub
_EMPTY_KEPT = frozenset(
    {
        "opt_out_label",
        "files_recheck_delays",
        "notes_github_dir",
        "db_path",
        "repos",
        "github_webhook_secret",
    }
)


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be a base every link or call is built on, if it cannot: what
    follows the host is kept in every link of every comment, and nothing else fails.
    The value is not echoed (GITHUB_API_URL may carry a user and password)."""
    if not re.match(r"^https?://[^/\s]", url):
        return "must be an http(s) URL"
    if "#" in url:  # docker's --env-file keeps `VALUE # comment` whole
        return "holds '#': an inline comment (an env file keeps it in the value) or a fragment"
    if any(c.isspace() or not c.isprintable() for c in url):  # (blanks around: `_stripped`)
        return "holds whitespace or a control character, which no URL has"
    if "?" in url:
        return "holds a query ('?'): links are built by adding a path to it"
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        written = parts.netloc.rpartition(":")[2]
        return f"the port {written!r} is not a number from 1 to 65535"
    if not parts.hostname:
        return "names no host"
    return None


# A live webhook secret's fewest characters: a shorter one is guessed by trying them all,
# and a delivery (or a notes comment's signature) forged with the guess verifies
MIN_WEBHOOK_SECRET = 16
# How to make one, for the operator whose secret is too short
_NEW_SECRET = (
    "set a new long random one, `openssl rand -hex 32` or"
    ' python3 -c "import secrets; print(secrets.token_hex(32))", in the App\'s webhook'
    " settings (with GITHUB_TOKEN: the repository webhook's) and here"
)

# What GITHUB_WEBHOOK_SECRET must be, for the operator who has none at hand yet
_SECRET_IS = (
    "the same as the App's webhook secret (with GITHUB_TOKEN: the repository webhook's); a new"
    ' one is a long random string, python3 -c "import secrets; print(secrets.token_hex(32))",'
    " set in both"
)


class SettingsError(Exception):
    """Start-up configuration problems, one `NAME: message` per line."""


# GitHub's credentials, any one of which means live mode (`has_credentials`)
_CREDENTIALS = (
    "github_app_id",
    "github_private_key",
    "github_private_key_path",
    "github_token",
)


def _github(name: str) -> Any:
    return Field(default=None, validation_alias=AliasChoices(name))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=ENV_FILE,
        env_file_encoding="utf-8",
        extra="forbid",
        validate_by_name=True,
        toml_file=DEFAULT_BOT_TOML,
        # NaN and infinity are no seconds or counts; refused as such, not as a value out of
        # a range it is not out of ("should be less than or equal to 300")
        allow_inf_nan=False,
    )

    # --- GitHub (standard names, no prefix) ---
    github_app_id: str | None = _github("GITHUB_APP_ID")  # App ID or client ID
    github_private_key: SecretStr | None = _github("GITHUB_PRIVATE_KEY")  # PEM text
    github_private_key_path: Path | None = _github("GITHUB_PRIVATE_KEY_PATH")
    github_webhook_secret: SecretStr | None = _github("GITHUB_WEBHOOK_SECRET")
    # the one before a rotation: notes comments signed with it still verify (never deliveries)
    github_previous_webhook_secret: SecretStr | None = _github("GITHUB_PREVIOUS_WEBHOOK_SECRET")
    github_api_url: str = Field(
        default="https://api.github.com", validation_alias=AliasChoices("GITHUB_API_URL")
    )
    github_token: SecretStr | None = _github("GITHUB_TOKEN")

    # --- the bot (REVIEW_NOTES_*) ---
    db_path: Path = Path("var/review-notes.sqlite3")
    repos: Annotated[tuple[str, ...], NoDecode] = ("vllm-project/vllm",)
    dry_run: bool | None = None  # None: dry run exactly when no credentials are set
    public_url: str | None = None  # base of the notes pages; dry run: http://HOST:PORT
    comment_on_drafts: bool = False
    opt_out_label: str = "no-review-notes"  # a PR with this label gets no automatic update
    # GitHub's file list can lag behind a push: look again after these delays (s).
    files_recheck_delays: Annotated[tuple[float, ...], NoDecode] = (5.0, 30.0, 120.0)
    command: str | None = None  # None: `word` in config/commands.toml (default /notes)
    note_links: Literal["pages", "github"] = "pages"
    notes_github_repo: str | None = None  # owner/name holding the note files (links=github)
    notes_github_branch: str = "main"
    notes_github_dir: str = "seeds/notes"
    notes_dir: Path = DEFAULT_NOTES_DIR
    topics_file: Path = DEFAULT_TOPICS_FILE
    matching_file: Path = DEFAULT_MATCHING_FILE
    workers: int = Field(default=2, ge=1, le=32)
    # /healthz fails once a worker has failed this long to claim or record (0: at once)
    workers_stuck_seconds: float = Field(default=60.0, ge=0, le=86400)
    # an idle worker looks at the queue at least this often (another process's writes)
    workers_poll_seconds: float = Field(default=5.0, gt=0, le=300)
    # Done and failed deliveries are deleted this long after they finished; at least
    # GitHub's redelivery window (3 days), so a redelivery is still known as one.
    delivery_retention_days: int = Field(default=14, ge=3, le=3650)
    # App mode: at start, ask GitHub again for what it failed to deliver while no server ran
    redeliver_on_start: bool = True
    # App mode: then again every this many minutes, for what failed since (0: never)
    redeliver_every_minutes: int = Field(default=60, ge=0, le=1440)
    http_timeout: float = Field(default=15.0, gt=0, le=300)
    # a whole call (connection to the answer's last byte); never under http_timeout
    http_deadline: float = Field(default=60.0, gt=0, le=3600)
    max_retries: int = Field(default=3, ge=0, le=10)  # after the first try
    retry_backoff: float = Field(default=1.0, ge=0, le=60)  # first wait; doubles
    # longest wait between tries after a 5xx, a timeout or a dropped connection (never
    # under retry_backoff; retry_max_wait caps it too)
    retry_backoff_max: float = Field(default=30.0, ge=0, le=3600)
    # caps every retry wait: a secondary rate limit's doubling (never under its first
    # minute) and the 5xx back-off; a wait GitHub names (Retry-After, reset) is not capped
    retry_max_wait: float = Field(default=300.0, ge=0, le=3600)
    # longest rate limit wait slept in a worker; longer: the delivery waits in the queue
    retry_sleep_max: float = Field(default=5.0, ge=0, le=60)
    # a comment create whose answer was lost and which the comment list lacks: the list is
    # read again after this long before it is posted again (a list lags behind a write)
    lost_create_wait: float = Field(default=5.0, ge=0, le=60)
    # a reply posted again after a lost answer: its copies are looked for (and deleted, the
    # oldest kept) this long after (s); 0: never
    reply_copies_check_after: float = Field(default=60.0, ge=0, le=86400)
    # GitHub's 404 to an installation's token (the App uninstalled from it) is kept this
    # long, no event of that installation since, once a second 404 confirmed it (a lone
    # one: 10 s): calls mint nothing for it, and look up where their repository is now
    removed_installation_kept_seconds: float = Field(default=300.0, ge=0, le=3600)
    seconds_between_requests: float = Field(default=0.25, ge=0, le=10)  # PyGithub throttle
    seconds_between_writes: float = Field(default=1.0, ge=0, le=60)  # GitHub asks for >= 1 s
    # put-backs of a rate limited delivery (retry_sleep_max) before it fails
    # (bot.queue.MAX_DEFERRALS, which a test holds it to: the queue imported here cost
    # every command that reads the settings, `notes check` too, 30 ms)
    max_deferrals: int = Field(default=14, ge=1, le=100)
    # a delivery GitHub failed in an outage (5xx, network) is put back for outage_wait s,
    # doubling up to outage_wait_max, while the waits come to outage_wait_total at most;
    # then it fails (0: at once, as a refusal does)
    outage_wait: float = Field(default=60.0, ge=0.01, le=3600)
    outage_wait_max: float = Field(default=900.0, ge=0.01, le=86400)
    outage_wait_total: float = Field(default=3600.0, ge=0, le=86400)
    # a refused (401) delivery is logged once per this many seconds, with a count
    seconds_between_unverified_logs: float = Field(default=60.0, ge=1, le=3600)
    bot_login: str | None = None  # default: the App's "<slug>[bot]" or the token's user
    # how calls name a repository: "id", the webhook's repository.id (/repositories/{id},
    # which a rename keeps); "name", /repos/{owner}/{repo}, should GitHub refuse the former
    address_repos_by: Literal["id", "name"] = "id"
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    # the settings whose `.env` value was not read, an empty variable read first (unset)
    _passed_over_in_env_file: frozenset[str] = PrivateAttr(default=frozenset())

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Earlier wins: explicit arguments, real environment, .env, then config/bot.toml.
        # An empty value in the first three is unset, and the later ones but bot.toml
        # pass over the setting (`_EmptyUnset`), which they are called in order to learn.
        assert isinstance(init_settings, InitSettingsSource)
        assert isinstance(dotenv_settings, DotEnvSettingsSource)
        emptied: set[str] = set()
        return (
            _InitSource(settings_cls, init_settings.init_kwargs).sharing(emptied),
            _EnvSource(settings_cls).sharing(emptied),
            _DotEnvSource(
                settings_cls,
                env_file=dotenv_settings.env_file,
                env_file_encoding=dotenv_settings.env_file_encoding,
            ).sharing(emptied),
            _TomlSource(settings_cls),
        )

    @model_validator(mode="wrap")
    @classmethod
    def _keep_passed_over(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        # `_DotEnvSource` hands them on among the settings' values, the one way out of a
        # source; taken out before those are validated
        passed: frozenset[str] = frozenset()
        if isinstance(data, dict) and _PASSED_OVER in data:
            data = dict(data)
            passed = data.pop(_PASSED_OVER)
        settings = handler(data)
        settings._passed_over_in_env_file = passed
        return settings

    # Defined first, so it runs after the other "before" validators (pydantic runs them
    # last-defined first): `_split_list`'s items are stripped too.
    @field_validator("*", mode="before")
    @classmethod
    def _stripped(cls, v: object, info: ValidationInfo) -> object:
        # Blanks around a value are a template's, a quoted value's or a mounted file's line
        # end, never meant: " skip " matched no label, " x.db " named another file,
        # "acme/one\n" no repository. A secret's blanks are left to its own check.
        name = info.field_name
        if name is None or SecretStr in get_args(cls.model_fields[name].annotation):
            return v
        if isinstance(v, list | tuple):
            return [item.strip() if isinstance(item, str) else item for item in v]
        return v.strip() if isinstance(v, str) else v

    @field_validator("files_recheck_delays")
    @classmethod
    def _check_delays(cls, v: tuple[float, ...]) -> tuple[float, ...]:
        if any(not 0 <= d <= 3600 for d in v):
            raise ValueError("each delay must be between 0 and 3600 seconds")
        return v

    @field_validator(*_LISTS, mode="before")
    @classmethod
    def _split_list(cls, v: Any) -> Any:
        if isinstance(v, str):  # env: "a/b,c/d" or "5,30" (or JSON, which also splits cleanly)
            # every blank, not spaces alone: a tab's or a line end's entry is none (`a/b,`
            # ending a mounted file), and JSON written over lines is read as on one
            v = [r.strip(_LIST_ITEM_EDGES) for r in v.split(",")]
            v = [r for r in v if r]
        elif isinstance(v, list | tuple):  # bot.toml's: a blank entry is none there too
            v = [r for r in v if not (isinstance(r, str) and not r.strip())]
        return v

    @field_validator("repos")
    @classmethod
    def _check_repos(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [f"{r}: {why}" for r in v if (why := _repo_problem(r))]
        if bad:
            raise ValueError("; ".join(bad))
        if not v:
            raise ValueError("the allow-list is empty: the bot would never comment")
        return tuple(r.lower() for r in v)

    @field_validator("command")
    @classmethod
    def _check_command(cls, v: str | None) -> str | None:
        if v is None:
            return None
        from bot.commands import WORD_PATTERN  # here: the commands' module costs a start 20 ms

        if not re.match(WORD_PATTERN, v):
            raise ValueError("must be '/' then a letter, then letters, digits, '_' or '-'")
        return v.lower()

    @field_validator("*", mode="before")
    @classmethod
    def _not_quoted(cls, v: object, info: ValidationInfo) -> object:
        # `docker run --env-file` keeps quotes: NAME="value" gives `"value"`, where a
        # checkout's .env (python-dotenv) and compose drop them. No setting's value is
        # wrapped in quotes (the value is not echoed: it may be a secret). The lists'
        # items are read with their quotes dropped (`_split_list`: JSON too), as before.
        if info.field_name in _LISTS:
            return v
        text = v.get_secret_value() if isinstance(v, SecretStr) else v
        if isinstance(text, str):
            text = text.strip()
            if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
                raise ValueError(
                    "is wrapped in quotes, which `docker run --env-file` keeps as part of"
                    " the value: write NAME=value, without them"
                )
        return v

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_in_any_case(cls, v: object) -> object:
        # Python's logging and uvicorn's --log-level take any case: `debug` is a level too
        return v.upper() if isinstance(v, str) else v

    @field_validator("github_api_url", "public_url")
    @classmethod
    def _check_url(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None:
            return v
        why = _url_problem(v)
        if why:
            raise ValueError(why)
        v = v.rstrip("/")
        # a proxy's basic auth written into it: every comment on GitHub would publish it
        if info.field_name == "public_url" and "@" in urlsplit(v).netloc:
            raise ValueError(
                "holds a user or password (before '@'): every note link in the comments on"
                " GitHub would show it; give the address without it (not shown here)"
            )
        # the App's webhook URL pasted here: every note link would be under /webhook
        if info.field_name == "public_url" and urlsplit(v).path.endswith("/webhook"):
            raise ValueError(
                "ends in /webhook, the App's webhook URL: give this server's base address"
                " (the same without /webhook), which the note links are built on"
            )
        return v

    @field_validator("github_token", mode="after")
    @classmethod
    def _token_has_no_whitespace(cls, v: SecretStr | None) -> SecretStr | None:
        # A secret mounted from a file (`kubectl create secret --from-file`) ends in a
        # newline: no token holds whitespace, so it is the file's. Inside, it is no token
        # (an HTTP header cannot carry it: every call would fail, after a clean start).
        if v is None:
            return v
        token = v.get_secret_value().strip()
        if any(c.isspace() for c in token):
            raise ValueError("holds whitespace inside, which no GitHub token does")
        return SecretStr(token)

    @field_validator("github_webhook_secret", "github_previous_webhook_secret", mode="after")
    @classmethod
    def _secret_line_end_is_the_files(cls, v: SecretStr | None) -> SecretStr | None:
        # GitHub's webhook secret is one line (a single-line form field; hex from the
        # manifest flow): a line end after it is a mounted file's. A blank around it
        # is likelier a template's than the secret's, and kept it failed every delivery's
        # signature (401) after a clean start; dropped, it would fail a secret holding it.
        if v is None:
            return v
        secret = v.get_secret_value().rstrip("\r\n")
        if re.search(r"\s#", secret):  # `docker run --env-file` keeps `VALUE # comment`
            raise ValueError(
                "holds ' #', an inline comment's start, which `docker run --env-file` keeps"
                " in the value (python-dotenv and compose drop it): put the comment on a"
                " line of its own; if GitHub's secret holds it, set a new secret without, in"
                " both places (the value is not shown)"
            )
        if secret.strip() not in ("", secret):  # (blank: empty, `has_webhook_secret`)
            raise ValueError(
                "starts or ends with a space or a tab (a template's or a quoted value's?"
                " in .env, around an unquoted value, `docker run --env-file` keeps them),"
                " which the secret set on GitHub would have to hold too: write it without"
                " them; if GitHub's holds them, set a new secret without, in both places"
                " (the value is not shown)"
            )
        return SecretStr(secret)

    @field_validator("db_path", mode="before")
    @classmethod
    def _check_db_path(cls, v: object) -> object:
        # `REVIEW_NOTES_DB_PATH=` would be Path("."): the working directory, not a file.
        if isinstance(v, str) and not v.strip():
            raise ValueError("is empty: name the SQLite file (default var/review-notes.sqlite3)")
        return v

    @field_validator(
        "db_path",
        "github_private_key_path",
        "notes_dir",
        "topics_file",
        "matching_file",
        mode="after",
    )
    @classmethod
    def _home_is_expanded(cls, v: Path | None) -> Path | None:
        # A shell expands `~/x` typed on its command line, but not in .env, bot.toml, a
        # compose file's environment, nor after `--db=`: taken as written, the server
        # made a directory named `~` in its working directory and its database there.
        if v is None:
            return v
        try:
            return v.expanduser()
        except RuntimeError:  # `~name` of no user, or no home: a path as written
            return v

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_default(cls, v: object, info: ValidationInfo) -> object:
        # Empty (a template's empty line) means unset for every setting but those whose
        # empty value says something (`_EMPTY_KEPT`): given before config/bot.toml, it is
        # dropped from its source and the later ones (`_EmptyUnset`), so bot.toml's value
        # is read; empty in bot.toml, it is the default here. Never kept as it is: a host
        # of "" would bind every interface, a URL of "" is no URL (it stopped a dry run),
        # a library path of "" the working directory (a start refused naming no variable),
        # a branch of "" a `blob//` in every note link, a number or a yes/no of "" a start
        # refused. A credential of "" is none (`GITHUB_TOKEN=`: a dry run, not live mode
        # with nothing to sign in with, or a key at Path(".")); an emptied
        # GITHUB_PREVIOUS_WEBHOOK_SECRET (a rotation over) keeps none.
        name = info.field_name  # a field validator's is always set
        if name is not None and _blank_unset(name, v):
            return cls.model_fields[name].default
        return v

    @field_validator("notes_github_branch", mode="after")
    @classmethod
    def _branch_git_allows(cls, v: str) -> str:
        # every `github` note link goes to blob/<branch>/: one git refuses is none on
        # GitHub. Shown: a branch's name is no secret.
        why = _branch_problem(v)
        if why is not None:
            raise ValueError(
                f"{v!r} is no branch name git allows: {why}; write the branch holding the"
                " note files, as GitHub lists it"
            )
        return v

    @field_validator("notes_github_dir", mode="after")
    @classmethod
    def _dir_in_the_tree(cls, v: str) -> str:
        # a link's `.`, `..` or empty part is resolved by the browser before GitHub sees
        # it: blob/main/../notes/ is blob/notes/, a branch named notes
        if any(part in ("", ".", "..") for part in v.strip("/").split("/")) and v.strip("/"):
            raise ValueError(
                f"{v!r} has a '.', '..' or empty part, which a link resolves away: name the"
                " directory of the note files from the repository's root, as seeds/notes"
            )
        return v

    @field_validator("github_private_key", mode="before")
    @classmethod
    def _unescape_key(cls, v: object) -> object:
        # `docker run --env-file` cannot hold a multi-line value, so the key comes on one
        # line with literal "\n" escapes; a key that has real newlines inside is taken as
        # it is (one at its end is a file's or an `echo`'s, not the key's).
        text = v.get_secret_value() if isinstance(v, SecretStr) else v
        if not isinstance(text, str):
            return v
        return _unescaped(text.removeprefix(_BOM))  # `$(cat app.pem)` of a file saved with one

    @field_validator("github_app_id", mode="after")
    @classmethod
    def _app_id_shape(cls, v: str | None) -> str | None:
        # It goes to GitHub as the JWT's issuer: the key, the webhook secret or a token
        # pasted here by mistake would be sent (and refused) there. Not echoed either.
        if v is not None and not _APP_ID.fullmatch(v):
            raise ValueError(
                "is neither the App's ID (a number) nor its client ID (Iv...); the value is"
                " not shown, in case it is the key, a secret or a token in the wrong variable"
            )
        return v

    @field_validator("bot_login", mode="after")
    @classmethod
    def _login_shape(cls, v: str | None) -> str | None:
        # The bot edits only comments of this login: one no account can have makes every
        # comment of its own a stranger's. Not echoed, as GITHUB_APP_ID's.
        if v is not None and not _LOGIN.fullmatch(v):
            raise ValueError(
                "is no GitHub login: letters, digits, '-' and '_', no '@', and '[bot]' after"
                " an App's (review-notes[bot]); the value is not shown"
            )
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        problems = []
        key_given = self.github_private_key is not None or self.github_private_key_path is not None
        if self.github_private_key is not None and self.github_private_key_path is not None:
            problems.append(
                "GITHUB_PRIVATE_KEY: set either GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH,"
                " not both"
            )
        if self.github_app_id and not key_given:
            problems.append("GITHUB_PRIVATE_KEY: GITHUB_APP_ID is set but no private key is")
        if key_given and not self.github_app_id:
            problems.append("GITHUB_APP_ID: a private key is set but no App ID is")
        if self.github_token is not None and (self.github_app_id or key_given):
            problems.append("GITHUB_TOKEN: set either a token or the App credentials, not both")
        if self.github_private_key_path is not None and not problems:
            problems += _check_pem_file(self.github_private_key_path)
        elif self.github_private_key is not None and not _looks_like_pem(
            self.github_private_key.get_secret_value()
        ):
            problems.append(f"GITHUB_PRIVATE_KEY: {_not_a_key(self.github_private_key)}")
        if self.dry_run is False and not self.has_credentials:
            problems.append(
                f"{ENV_PREFIX}DRY_RUN: is false but no GitHub credentials are set "
                "(GITHUB_APP_ID + GITHUB_PRIVATE_KEY[_PATH], or GITHUB_TOKEN)"
            )
        live = self.dry_run is False or (self.dry_run is None and self.has_credentials)
        if live and self.github_webhook_secret is None:
            problems.append(f"GITHUB_WEBHOOK_SECRET: required when posting to GitHub: {_SECRET_IS}")
        elif live and not self.has_webhook_secret:
            problems.append(
                "GITHUB_WEBHOOK_SECRET: is empty; required when posting to GitHub "
                f"(with an empty secret anyone can sign a delivery): {_SECRET_IS}"
            )
        elif live and self.webhook_secret() == DEV_WEBHOOK_SECRET:
            problems.append(
                "GITHUB_WEBHOOK_SECRET: is the development secret, which the README and the"
                " dry run's banner print (anyone can sign a delivery with it); required when"
                " posting to GitHub: use the App's or the hook's own secret"
            )
        elif live and len(self.webhook_secret()) < MIN_WEBHOOK_SECRET:
            problems.append(
                f"GITHUB_WEBHOOK_SECRET: is shorter than {MIN_WEBHOOK_SECRET} characters"
                f" (a guess of it signs any delivery): {_NEW_SECRET}"
            )
        previous = self._previous_secret()
        if live and previous == DEV_WEBHOOK_SECRET:
            problems.append(
                "GITHUB_PREVIOUS_WEBHOOK_SECRET: is the development secret, which anyone can"
                " sign a notes comment with; leave it unset (a dry run's comments were never"
                " posted)"
            )
        elif live and previous is not None and len(previous) < MIN_WEBHOOK_SECRET:
            problems.append(
                f"GITHUB_PREVIOUS_WEBHOOK_SECRET: is shorter than {MIN_WEBHOOK_SECRET}"
                " characters (a guess of it signs a notes comment): leave it unset; a"
                " comment signed with it then verifies no more, and its next update signs it"
                " with the new secret"
            )
        if live and self.note_links == "pages" and self.public_url is None:
            problems.append(
                f"{ENV_PREFIX}PUBLIC_URL: required with {ENV_PREFIX}NOTE_LINKS=pages when"
                " posting to GitHub: the https address reviewers' browsers reach this server"
                " at (https://notes.example.org; the App's webhook URL without /webhook),"
                " which every note link in the comments is built on"
            )
        if self.note_links == "github":
            # the note links would all lead to a repository that cannot exist
            repo = self.notes_github_repo or ""
            why = _repo_problem(repo) if repo else "required (owner/name)"
            if why:
                shown = f"{repo}: " if repo else ""
                problems.append(
                    f"{ENV_PREFIX}NOTES_GITHUB_REPO: {shown}{why} "
                    f"(with {ENV_PREFIX}NOTE_LINKS=github)"
                )
        if problems:
            raise ValueError("\n".join(problems))
        return self

    # --- derived values ---

    @property
    def has_credentials(self) -> bool:
        # (an App ID is never "": blank is unset, and `_app_id_shape` refuses it)
        return any(getattr(self, field) is not None for field in _CREDENTIALS)

    @property
    def passed_over_in_env_file(self) -> frozenset[str]:
        """The settings `.env` sets whose value was not read: an empty variable (unset)
        was read first (`load_settings`' values, as `serve --host ""`, alike)."""
        return self._passed_over_in_env_file

    @property
    def is_dry_run(self) -> bool:
        return self.dry_run if self.dry_run is not None else not self.has_credentials

    @property
    def has_webhook_secret(self) -> bool:
        """GITHUB_WEBHOOK_SECRET is set to something other than blanks."""
        secret = self.github_webhook_secret
        return secret is not None and bool(secret.get_secret_value().strip())

    @property
    def uses_dev_secret(self) -> bool:
        return not self.has_webhook_secret  # dry run only: live mode requires a secret

    def webhook_secret(self) -> str:
        if self.github_webhook_secret is not None and self.has_webhook_secret:
            return self.github_webhook_secret.get_secret_value()
        return DEV_WEBHOOK_SECRET

    def previous_webhook_secrets(self) -> tuple[str, ...]:
        """The webhook secret before a rotation, when kept (GITHUB_PREVIOUS_WEBHOOK_SECRET):
        the notes comments signed with it still verify until their next write."""
        previous = self._previous_secret()
        return () if previous is None or previous == self.webhook_secret() else (previous,)

    def _previous_secret(self) -> str | None:
        secret = self.github_previous_webhook_secret
        return None if secret is None else secret.get_secret_value()

    def secret_values(self) -> list[str]:
        """What logs and stored errors must never show: the webhook secrets, the token,
        the key given as text (one read from a file is found by its shape)."""
        secrets = [self.webhook_secret(), *self.previous_webhook_secrets()]
        for secret in (self.github_token, self.github_private_key):
            if secret is not None:
                secrets.append(secret.get_secret_value())
        return secrets

    def private_key_pem(self) -> str | None:
        if self.github_private_key is not None:
            return self.github_private_key.get_secret_value()
        if self.github_private_key_path is not None:
            return _read_key(self.github_private_key_path)
        return None

    def links_base(self) -> str:
        """Where `/notes/{id}` pages are served: PUBLIC_URL, else this server as a local
        browser reaches it (`local_url`)."""
        return self.public_url or self.local_url()

    def local_url(self) -> str:
        """This server as a client on this machine reaches it (the start's banner, `replay`,
        the dry run's links): listening on every address means this machine's loopback,
        which a browser can open (it cannot open 0.0.0.0 everywhere)."""
        host = self.host
        if host == "0.0.0.0":  # (a blank host loads as the default: `_blank_is_default`)
            host = "127.0.0.1"
        elif host in ("::", "[::]"):  # IPv6's every address: its loopback answers even
            host = "[::1]"  # where IPv6 sockets take no IPv4 (bindv6only)
        elif ":" in host and not host.startswith("["):
            host = f"[{host}]"  # an IPv6 address in a URL
        return f"http://{host}:{self.port}"

    def notes_repo_url(self) -> str:
        """The notes repository on GitHub (links mode "github"), or ""."""
        return f"https://github.com/{self.notes_github_repo}" if self.notes_github_repo else ""

    def allows(self, repo: str) -> bool:
        return repo.lower() in self.repos


class _TomlSource(TomlConfigSettingsSource):
    """config/bot.toml read as every config file is (`read_config`): a byte-order mark
    (Notepad's "UTF-8 with BOM") or CR line ends are no fault, and a malformed line is
    named with its number and tomllib's error explained. GitHub's settings are refused
    there (`github_keys_refused`)."""

    def _read_file(self, file_path: Path | Traversable) -> dict[str, Any]:
        config = read_config(Path(str(file_path)))
        refused = github_keys_refused(config)
        if refused:
            raise ConfigError(refused)
        return config.data


# Where each of GitHub's settings goes instead of config/bot.toml (the environment's
# variable, by default)
_GITHUB_PLACE = {
    "github_private_key": (
        "give the key in a file named by GITHUB_PRIVATE_KEY_PATH, or in GITHUB_PRIVATE_KEY,"
        " in the environment or .env"
    ),
}


def github_keys_refused(config: ConfigFile) -> list[Problem]:
    """A problem on its line for each of GitHub's settings (GITHUB_*: the credentials,
    the API's URL) set in the settings file `config`, by its key as written: the file is
    committed and copied into the image, where a credential would be read by anyone who
    has either. They come from the environment or `.env` (the key from a key file too)."""
    github = {f for f in Settings.model_fields if env_name(f).startswith(_GITHUB_PREFIX)}
    refused = []
    for key in config.data:
        field = key.lower()  # keys are read in any case: GITHUB_TOKEN is github_token
        if field in github:
            place = _GITHUB_PLACE.get(field, f"set {env_name(field)} in the environment or .env")
            said = "GitHub's settings are never read from this file (committed, and copied"
            refused.append(config.problem(key, f"{said} into the image): {place}"))
    return refused


def _blank_unset(name: str, value: object) -> bool:
    """Whether `value`, given for the setting `name` (its field or its variable, in any
    case), is empty and so unset: given before config/bot.toml, bot.toml's value is read
    instead, else the default, as shipped (`_EMPTY_KEPT`: but where empty says something)."""
    text = value.get_secret_value() if isinstance(value, SecretStr) else value
    if not isinstance(text, str) or text.strip():
        return False
    field = _field_named(name)
    return bool(field) and field not in _EMPTY_KEPT


def _field_named(name: str) -> str:
    """The setting `name` is (its field or its variable, in any case), or ""."""
    field = name.lower()
    if field in Settings.model_fields:
        return field
    return next((f for f in Settings.model_fields if env_name(f).lower() == field), "")


class _EmptyUnset:
    """A source before config/bot.toml whose empty values are unset (`_blank_unset`): not
    read, nor a later source's value of the same setting but bot.toml's (`GITHUB_TOKEN=`
    is no token, even where .env holds one). `emptied`, shared by these sources, holds the
    settings an earlier one left empty; `passed_over`, those of this source's values."""

    emptied: set[str]
    passed_over: set[str]

    def sharing(self, emptied: set[str]) -> Self:
        self.emptied = emptied
        self.passed_over = set()
        return self

    def _unset(self, data: dict[str, Any]) -> dict[str, Any]:
        kept = {}
        for key, value in data.items():
            field = _field_named(key)
            if field in self.emptied:
                if not _blank_unset(key, value):  # (an emptied setting's empty is unset)
                    self.passed_over.add(field)
                continue
            if _blank_unset(key, value):
                self.emptied.add(field)
            else:
                kept[key] = value
        return kept


class _InitSource(_EmptyUnset, InitSettingsSource):
    """The values given (`load_settings`: `serve --host ""` among them)."""

    def __call__(self) -> dict[str, Any]:
        return self._unset(super().__call__())


class _EnvSource(_EmptyUnset, EnvSettingsSource):
    """The environment."""

    def __call__(self) -> dict[str, Any]:
        return self._unset(super().__call__())


# The key `_DotEnvSource` hands its passed-over settings on by, which no setting has
_PASSED_OVER = "(passed over in .env)"


class _DotEnvSource(_EmptyUnset, DotEnvSettingsSource):
    """`.env` as docker (`--env-file`) and compose share it: a name without the bot's
    prefixes (TZ, COMPOSE_PROJECT_NAME) is another tool's and left alone; an unknown
    name with them stays an error, named as written in the file (not lower-cased). A
    webhook secret is read as docker reads it (`_as_docker_reads`)."""

    def __call__(self) -> dict[str, Any]:
        fields = self.settings_cls.model_fields
        known = set(fields) | {env_name(f) for f in fields}  # a field's name, or its alias
        written = self._bindings()
        data: dict[str, Any] = {}
        for key, value in super().__call__().items():
            if _field_named(key) in _WEBHOOK_SECRETS and key.lower() in written:
                data[key] = _as_docker_reads(written[key.lower()], value)
            elif key in known:
                data[key] = value
            elif key.startswith((ENV_PREFIX.lower(), "github_")):
                binding = written.get(key)
                data[binding.key if binding and binding.key else key] = value  # "unknown setting"
        data = self._unset(data)
        if self.passed_over:  # for `Settings.passed_over_in_env_file`
            data[_PASSED_OVER] = frozenset(self.passed_over)
        return data

    def _bindings(self) -> dict[str, Binding]:
        """Each name's line (the last, whose value is read), by the name in lower case as
        the source reads it; read with python-dotenv's parser, as the source reads the
        files (its dependency)."""
        files = self.env_file
        if files is None:
            return {}
        paths = [files] if isinstance(files, str | os.PathLike) else list(files)
        encoding = self.env_file_encoding or "utf-8"
        return {
            binding.key.lower(): binding
            for path in map(Path, paths)
            if path.is_file()
            for binding in parse_stream(io.StringIO(path.read_text(encoding)))
            if binding.key is not None
        }


# The webhook secrets, whose blanks may be their own (`_secret_line_end_is_the_files`)
_WEBHOOK_SECRETS = ("github_webhook_secret", "github_previous_webhook_secret")


def _as_docker_reads(binding: Binding, value: str | None) -> str | None:
    """`value`, python-dotenv's reading of `binding`, as `docker run --env-file` reads it:
    the blanks around an unquoted value and an inline comment after it, which python-dotenv
    drops, kept (its line end aside). Else the same .env would be one secret to a
    checkout's server and another, refused as padded or commented, to the image's."""
    raw = binding.original.string.lstrip().partition("=")[2]
    raw = raw.removesuffix("\n").removesuffix("\r")
    dropped = re.sub(r"\s+#.*", "", raw).strip()  # what python-dotenv reads unquoted
    return raw if value is not None and raw != value and dropped == value else value


# A key file saved by an editor that starts UTF-8 with a byte order mark (Windows'
# Notepad did by default): the key is the same, and no PEM parser reads the mark.
_BOM = "\ufeff"
_KEY_ENCODING = "utf-8-sig"


def _unescaped(text: str) -> str:
    """The key given on one line with literal "\\n" escapes (an env file's, a secret
    store's JSON string) as its lines; a key that has real newlines inside is taken as it
    is (one at its end is a file's or an `echo`'s, not the key's)."""
    if "\n" not in text.strip() and "\\n" in text:
        # "\r\n": a JSON string of a file saved on Windows (CRLF line ends)
        return text.strip().replace("\\r\\n", "\n").replace("\\n", "\n")
    return text


def _read_key(path: Path) -> str:
    """The key file's text: UTF-8, with a byte order mark or not, or UTF-16 with its mark,
    as Windows PowerShell's `>` (`$key > app.pem`) and Notepad's 'Unicode' save text: the
    key is the same, and no PEM parser reads UTF-16."""
    data = path.read_bytes()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _unescaped(data.decode("utf-16"))
    # the one-line value written to a file (`echo "$KEY" > app.pem` of a secret store's
    # value): the same key as in GITHUB_PRIVATE_KEY, where it is read so
    return _unescaped(data.decode(_KEY_ENCODING))


def _looks_like_pem(text: str) -> bool:
    text = text.strip()
    return text.startswith("-----BEGIN ") and "PRIVATE KEY-----" in text


# A key given base64-encoded, as a Kubernetes secret's `data:` holds it (copied from
# `kubectl get secret -o yaml`, or encoded twice through `stringData`), or `base64 app.pem`
_ENCODED = (
    "holds a PEM private key base64-encoded (as a Kubernetes secret's data: holds it): give"
    " the key itself, decoded (base64 -d)"
)


def _base64_of_pem(text: str) -> bool:
    """Whether `text` is base64 (wrapped in lines or not) of a PEM private key."""
    try:
        decoded = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        return False
    return _looks_like_pem(decoded.decode("utf-8", "replace"))


# The key's other half, which the App's settings page shows no more of than its
# fingerprint: a public key file at hand (`openssl rsa -pubout`, an SSH `.pub`) is not it.
_PUBLIC_KEY = re.compile(
    r"-----BEGIN (RSA )?PUBLIC KEY-----|(ssh-rsa|ssh-ed25519|ecdsa-sha2-\S+) AAAA"
)
_PRIVATE_KEY_HINT = (
    "give the App's private key: the .pem file its settings page downloads ('Generate a"
    " private key')"
)


def _other_text(text: str) -> str | None:
    """What a value given as the App's private key holds instead, when it is known."""
    if _PUBLIC_KEY.search(text):
        return f"holds a public key, not the private key: {_PRIVATE_KEY_HINT}"
    return None


def _not_a_key(value: SecretStr) -> str:
    """Why GITHUB_PRIVATE_KEY's value, no PEM private key, is not one, as the operator
    can act on it; the value is not shown (it may be a key in another shape)."""
    text = value.get_secret_value().strip()
    if _base64_of_pem(text):
        return _ENCODED
    if not text.startswith("-----") and _looks_like_path(text):
        # the key file's path, where the docs' GITHUB_PRIVATE_KEY_PATH takes it
        return (
            "holds a path (not shown), not the key: set GITHUB_PRIVATE_KEY_PATH to the"
            " key file's path, or GITHUB_PRIVATE_KEY to the key's text"
        )
    return _other_text(text) or "not a PEM private key (-----BEGIN ... KEY-----)"


# What a secret put where a path goes looks like: a GitHub token, or a long run of
# base64 or hex (a key as Kubernetes secrets hold it). Key file names hold neither.
_SECRET_SHAPE = re.compile(r"gh[pousr]_|github_pat_|[A-Za-z0-9+=]{32,}")


def _looks_like_path(value: str) -> bool:
    """Whether a GITHUB_PRIVATE_KEY_PATH value is plausibly a path (directories, or a
    name with a suffix), so that an error may print it."""
    return (
        ("/" in value or "." in value)
        and not _SECRET_SHAPE.search(value)
        and not any(c.isspace() for c in value)
    )


def _check_pem_file(path: Path) -> list[str]:
    value = str(path)
    # A key pasted where its path goes must not be echoed back into the logs.
    if "PRIVATE KEY" in value or "\n" in value:
        return [
            "GITHUB_PRIVATE_KEY_PATH: holds a key, not a path: use GITHUB_PRIVATE_KEY for"
            " the key itself"
        ]
    # Nor a token or a base64 key: only a value that looks like a path is shown.
    shown = _looks_like_path(value)
    what = value if shown else "the file it names"
    hint = (
        ""
        if shown
        else " (the value is not shown: it does not look like a path; the key itself goes"
        " in GITHUB_PRIVATE_KEY, a token in GITHUB_TOKEN)"
    )
    try:
        text = _read_key(path)
    except IsADirectoryError:  # docker -v of a host file that is not there makes a directory
        return [
            f"GITHUB_PRIVATE_KEY_PATH: {what} is a directory, not the key's file (`docker run"
            f" -v` makes one where the host's file it names is missing){hint}"
        ]
    except PermissionError as exc:  # a key file kept mode 600 by its owner, in an image
        return [
            f"GITHUB_PRIVATE_KEY_PATH: cannot read {what}: {exc.strerror} (this user is uid"
            f" {os.getuid()}){hint}"
        ]
    except OSError as exc:
        return [f"GITHUB_PRIVATE_KEY_PATH: cannot read {what}: {exc.strerror}{hint}"]
    except UnicodeDecodeError:
        return [f"GITHUB_PRIVATE_KEY_PATH: {what} is not a PEM text file{hint}"]
    if not _looks_like_pem(text):
        why = _ENCODED if _base64_of_pem(text) else _other_text(text) or "is not a PEM private key"
        return [f"GITHUB_PRIVATE_KEY_PATH: {what} {why}{hint}"]
    return []


def env_name(field: str) -> str:
    """The variable a user sets for `field`."""
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info else None
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return ENV_PREFIX + field.upper()


# GitHub's: the credentials, and names other tools use for them (GITHUB_APP_PRIVATE_KEY)
_GITHUB_PREFIX = "GITHUB_"
# how close a GITHUB_* name must be to ours to be named (GitHub Actions sets many others)
_GITHUB_CLOSE = 0.75


def unknown_variables(environ: Mapping[str, str], *, github: bool = False) -> list[str]:
    """A warning for each REVIEW_NOTES_* variable in `environ` that is no setting, with
    the closest setting: a typo (REVIEW_NOTES_REPO) would silently leave the default.
    Not an error, as in `.env`: other tools may set variables with this prefix.
    `github`: also a GITHUB_* variable close to one of ours (GITHUB_APP_PRIVATE_KEY, the
    name other tools give the key), when the settings failed: other GITHUB_* variables
    are other tools' (GitHub Actions sets dozens), so none is named without a match."""
    warnings = _unknown(environ, ENV_PREFIX, unmatched=True)
    if github:
        warnings += _unknown(environ, _GITHUB_PREFIX, unmatched=False)
    return warnings


def credentials_emptied(settings: Settings) -> list[str]:
    """A warning for each credential `.env` sets that the environment's empty value of it
    hid (`passed_over_in_env_file`): empty is unset, so .env's value is not read and the
    server runs dry, which its start alone would not explain to an operator whose .env
    holds the credentials."""
    return [
        f"{env_name(field)}: empty in the environment, so .env's value is not read (a dry"
        " run): unset it there to use .env's"
        for field in _CREDENTIALS
        if field in settings.passed_over_in_env_file
    ]


def _unknown(environ: Mapping[str, str], prefix: str, *, unmatched: bool) -> list[str]:
    """The warnings of `unknown_variables` for the names with `prefix`; `unmatched`: also
    the names close to no setting."""
    known = _names_after(prefix)
    warnings = []
    for name in sorted(environ):
        upper = name.upper()  # names are read in any case
        if not upper.startswith(prefix) or upper.removeprefix(prefix) in known:
            continue
        hint = _did_you_mean(name)
        if hint or unmatched:
            warnings.append(f"{name}: not a review-notes setting, ignored{hint}")
    return warnings


def _names_after(prefix: str) -> list[str]:
    """The settings' variable names with `prefix`, without it."""
    names = [env_name(f).upper() for f in Settings.model_fields]
    return [n.removeprefix(prefix) for n in names if n.startswith(prefix)]


def _did_you_mean(name: str) -> str:
    """`; did you mean X?` naming the setting closest to a REVIEW_NOTES_* or GITHUB_* name
    (one of the two) that is none (REVIEW_NOTES_REPO, GITHUB_APP_PRIVATE_KEY), or "" when
    none is close."""
    upper = name.upper()  # names are read in any case
    prefix = ENV_PREFIX if upper.startswith(ENV_PREFIX) else _GITHUB_PREFIX
    # how close a GITHUB_* name must be: GitHub Actions sets many others
    cutoff = 0.6 if prefix == ENV_PREFIX else _GITHUB_CLOSE
    known = _names_after(prefix)
    # Without the prefix they all share, every name would look close. `X_FILE` (the
    # name docker's secrets give a file) is our `X_PATH`.
    meant = re.sub(r"_FILE$", "_PATH", upper.removeprefix(prefix))
    close = difflib.get_close_matches(meant, known, n=1, cutoff=cutoff)
    if close:
        return f"; did you mean {prefix}{close[0]}?"
    # or one of ours under the other prefix (REVIEW_NOTES_WEBHOOK_SECRET, GITHUB_REPOS)
    other = _GITHUB_PREFIX if prefix == ENV_PREFIX else ENV_PREFIX
    return f"; did you mean {other}{meant}?" if meant in _names_after(other) else ""


def load_settings(
    *,
    env_file: str | Path | None = ENV_FILE,
    toml_file: Path | None = DEFAULT_BOT_TOML,
    **values: Any,
) -> Settings:
    """Build the settings or raise SettingsError naming each bad variable.

    `values` (by field name) override everything; tests pass `env_file=None`.
    """
    _check_utf8(env_file)  # else its decoding error would be taken for the TOML file's
    config = dict(Settings.model_config)
    toml = toml_file if toml_file is not None and toml_file.exists() else None
    config["toml_file"] = toml
    cls = type("Settings", (Settings,), {"model_config": config, "__module__": __name__})
    try:
        return cls(_env_file=env_file, **values)
    except ValidationError as exc:
        raise SettingsError(_describe(exc, toml, env_file, values)) from None
    except ConfigError as exc:  # in the middle of an edit, saved in another encoding
        raise SettingsError(str(exc)) from None


def _check_utf8(env_file: str | Path | None) -> None:
    path = Path(env_file) if env_file is not None else None
    if path is None or not path.is_file():
        return
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:  # a .env shared with other tools may be Latin-1
        raise SettingsError(f"{path}: not UTF-8 (byte {exc.start}): save it as UTF-8") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror}") from None
    # A line python-dotenv cannot read (`NAME: value`, an unclosed quote) it drops with a
    # warning naming no file: the setting would silently keep its default.
    bad = [
        (
            _line_of(b),
            _PEM_END_HINT if b.original.string.lstrip().startswith("-----END ") else "",
        )
        for b in parse_stream(io.StringIO(text))
        if b.error
    ]
    if bad:
        raise SettingsError(
            "\n".join(f"{path}:{line}: not a NAME=value line{hint}" for line, hint in bad)
        )


def _line_of(binding: Binding) -> int:
    """The line `binding` of a .env starts on (1-based): python-dotenv's is where the
    blank lines before it start, one holding a space, a tab or a CR among them."""
    string = binding.original.string
    blanks = string[: len(string) - len(string.lstrip())]
    return binding.original.line + len(re.findall(r"\r\n|\r|\n", blanks))


# A PEM key pasted unquoted: python-dotenv reads the lines before its END line as names
# with no value, so that line alone is refused, and nothing says why.
_PEM_END_HINT = (
    " (the last line of a key given over several lines: put the value in double quotes,"
    " or on one line with \\n escapes, or the key in a file named by GITHUB_PRIVATE_KEY_PATH)"
)


def _describe(
    exc: ValidationError,
    toml_file: Path | None = None,
    env_file: str | Path | None = None,
    given: Mapping[str, object] | None = None,
) -> str:
    """Each error on a line, named as the operator set it: the variable, or, for a value
    read from `.env` or `config/bot.toml`, its file, line and key as written there (`given`:
    the values given, which override them, or left empty, pass over them to bot.toml)."""
    given = given or {}
    emptied = {_field_named(k) for k, v in given.items() if _blank_unset(k, v)}
    lines = []
    toml_keys = _toml_key_lines(toml_file)
    env_keys = _env_key_lines(env_file)
    set_last = _env_key_lines(env_file, last=True)

    def read_at(name: str, field: str) -> str:
        # a bad value: where the one read was set (an argument's: the variable)
        if field in given and field not in emptied:
            return name
        return _set_at(name, field, toml_keys, toml_file, set_last, env_file, field in emptied)

    for err in exc.errors():
        msg = err["msg"].removeprefix("Value error, ")
        if not err.get("loc"):  # the cross-field check: each line starts with its variable
            for line in msg.split("\n"):
                name, colon, rest = line.partition(": ")
                field = _field_named(name) if colon else ""
                lines.append(f"{read_at(name, field)}: {rest}" if field else line)
            continue
        field = str(err["loc"][0])
        name = env_name(field) if field in Settings.model_fields else field
        if err["type"] == "extra_forbidden":
            msg = "unknown setting"
            if field in toml_keys:  # a key of config/bot.toml: where, and what was meant
                # keys are read in any case; a variable's name pasted in is the likeliest slip
                meant = field.lower().removeprefix(ENV_PREFIX.lower())
                close = difflib.get_close_matches(meant, list(Settings.model_fields), n=1)
                msg += f"; did you mean {close[0]!r}?" if close else ""
                name = f"{toml_file}:{toml_keys[field]}: {field}"
            elif field in env_keys:  # a name in .env, as written there (never its value)
                msg += _did_you_mean(field)
                name = f"{env_file}:{env_keys[field]}: {field}"
        else:
            name = read_at(name, field)
        lines.append(f"{name}: {msg}")
    return "\n".join(lines)


def _set_at(
    name: str,
    field: str,
    toml_keys: dict[str, int],
    toml_file: Path | None,
    env_keys: dict[str, int],
    env_file: str | Path | None,
    emptied: bool = False,
) -> str:
    """Where the value of the variable `name` (setting `field`, or GitHub's name for it)
    was read, in the sources' order: the environment (`name`), else `.env` or
    `config/bot.toml` by file and line, as written there (names and keys are read in any
    case; `env_keys` holds each name's last line in `.env`, the one python-dotenv reads).
    An empty value (an argument's: `emptied`) passes over the sources after it to bot.toml."""
    if not emptied:
        values = [v for k, v in os.environ.items() if k.upper() == name.upper()]
        if any(not _blank_unset(name, v) for v in values):
            return name
        emptied = bool(values)  # empty there: .env is passed over too
    set_in_env = (
        []
        if emptied
        else [(line, key) for key, line in env_keys.items() if key.upper() == name.upper()]
    )
    if set_in_env:
        line, key = max(set_in_env)  # `X=2`, then `x=99`: the last is read
        return f"{env_file}:{line}: {key}"
    for key, line in toml_keys.items():
        if key.lower() == field.lower():  # `WORKERS` for workers
            return f"{toml_file}:{line}: {key}"
    return name


def _toml_key_lines(toml_file: Path | None) -> dict[str, int]:
    """Each top-level key of the settings file -> its line (1-based); {} when unread."""
    if toml_file is None:
        return {}
    try:
        text = read_config(toml_file).text  # as it was read: its lines as the editor shows them
    except (OSError, ConfigError):
        return {}
    return {key: i + 1 for key, i in first_lines(text).items() if "." not in key}


def _env_key_lines(env_file: str | Path | None, *, last: bool = False) -> dict[str, int]:
    """Each name set in `.env`, as written -> its line (1-based; the first, when set
    twice, or with `last` the last, whose value is read, and none when that is empty and
    so unset); {} when there is none. Read as `_check_utf8` read it, before."""
    if env_file is None or not Path(env_file).is_file():
        return {}
    text = Path(env_file).read_text("utf-8")
    lines: dict[str, int] = {}
    for binding in parse_stream(io.StringIO(text)):
        if binding.key is not None:
            line = _line_of(binding)
            lines[binding.key] = line if last else lines.get(binding.key, line)
            if last and _blank_unset(binding.key, binding.value):
                del lines[binding.key]  # bot.toml's value is read
    return lines
