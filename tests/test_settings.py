"""Settings: defaults from config/bot.toml, env overrides, clear errors, secrets kept secret."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Literal

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa, x25519

from bot.settings import (
    DEV_WEBHOOK_SECRET,
    Settings,
    SettingsError,
    credentials_emptied,
    env_name,
    load_settings,
    unknown_variables,
)
from tests.docs_kit import doc
from tests.webhook_kit import ROOT, clear_error, run_cli

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n"
HOOK = "hook-secret-of-the-tests"  # a live webhook secret (16 characters or more)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("GITHUB_", "REVIEW_NOTES_")):
            monkeypatch.delenv(name)


def load(**kw):
    return load_settings(env_file=None, **kw)


def errors(**kw) -> str:
    with pytest.raises(SettingsError) as exc:
        load(**kw)
    return str(exc.value)


def test_no_credentials_means_dry_run_with_the_dev_secret():
    s = load()
    assert s.is_dry_run and s.uses_dev_secret
    assert s.webhook_secret() == DEV_WEBHOOK_SECRET
    assert s.repos == ("vllm-project/vllm",)
    assert s.command is None  # the word is config/commands.toml's (BotContext.command_word)
    assert s.comment_on_drafts is False and s.note_links == "pages"


def test_toml_gives_defaults_and_env_overrides_them(tmp_path, monkeypatch):
    toml = tmp_path / "bot.toml"
    toml.write_text('repos = ["acme/one"]\ncomment_on_drafts = true\ncommand = "/rn"\n')
    s = load_settings(env_file=None, toml_file=toml)
    assert s.repos == ("acme/one",) and s.comment_on_drafts and s.command == "/rn"
    monkeypatch.setenv("REVIEW_NOTES_REPOS", "acme/two, Acme/Three")
    monkeypatch.setenv("REVIEW_NOTES_COMMENT_ON_DRAFTS", "false")
    s = load_settings(env_file=None, toml_file=toml)
    assert s.repos == ("acme/two", "acme/three") and not s.comment_on_drafts
    assert s.command == "/rn"


def test_unknown_toml_key_is_named(tmp_path):
    toml = tmp_path / "bot.toml"
    toml.write_text("# the bot's defaults\nworkers = 2\ncomment_on_draft = true\n")
    with pytest.raises(SettingsError) as err:
        load_settings(env_file=None, toml_file=toml)
    # the file and line, and the setting meant
    assert str(err.value) == (
        f"{toml}:3: comment_on_draft: unknown setting; did you mean 'comment_on_drafts'?"
    )


@pytest.mark.parametrize(
    ("line", "meant"), [("REVIEW_NOTES_WORKERS = 4", "workers"), ('REPO = ["acme/one"]', "repos")]
)
def test_an_unknown_toml_key_in_any_case_gets_the_setting_meant(tmp_path, line, meant):
    # keys are read in any case, and a variable's name copied
    # from docs/operating.md's table is the likeliest slip; the suggestion compared as written
    toml = tmp_path / "bot.toml"
    toml.write_text(f"# the bot's defaults\n{line}\n", "utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(env_file=None, toml_file=toml)
    assert str(err.value).startswith(f"{toml}:2: ")
    assert f"did you mean {meant!r}?" in str(err.value)


def test_a_malformed_toml_file_is_named_with_its_line(tmp_path):
    # An edit of config/bot.toml left half done: a settings error, not a traceback.
    toml = tmp_path / "bot.toml"
    toml.write_text("workers = 2\ncomment_on_drafts = yes\n")
    with pytest.raises(SettingsError) as err:
        load_settings(env_file=None, toml_file=toml)
    assert str(err.value) == (
        f"{toml}:2: comment_on_drafts: yes is no TOML value: TOML's yes and no are true and false"
    )


def test_a_bad_value_is_named_where_it_was_set(tmp_path, monkeypatch):
    # `workers = "many"` in config/bot.toml, or in .env, was
    # named `REVIEW_NOTES_WORKERS: Input should be a valid integer`, a variable set
    # nowhere: the operator looked for it in the environment. An unknown key was named
    # by file and line already; a bad value now is too, where the value read came from.
    toml = tmp_path / "bot.toml"
    toml.write_text('# defaults\nworkers = "many"\nREPOS = ["a/b.git"]\n', "utf-8")
    env = tmp_path / ".env"
    env.write_text("TZ=UTC\nreview_notes_port=0\nREVIEW_NOTES_WORKERS=2\n", "utf-8")

    def said() -> list[str]:
        with pytest.raises(SettingsError) as exc:
            load_settings(env_file=env, toml_file=toml)
        return sorted(str(exc.value).splitlines())

    assert said() == [
        f"{env}:2: review_notes_port: Input should be greater than or equal to 1",
        f"{toml}:3: REPOS: a/b.git: drop the .git",
    ]
    env.write_text("TZ=UTC\n", "utf-8")  # the file's workers, found bad
    assert f"{toml}:2: workers: Input should be a valid integer" in "\n".join(said())
    monkeypatch.setenv("REVIEW_NOTES_REPOS", "c/d.git")  # the variable's, over the file's
    assert "REVIEW_NOTES_REPOS: c/d.git: drop the .git" in said()
    with pytest.raises(SettingsError) as exc:  # a value given by its caller: as before
        load_settings(env_file=env, toml_file=toml, workers=0, repos=("e/f",))
    assert "REVIEW_NOTES_WORKERS: Input should be greater than or equal to 1" == str(exc.value)


def test_a_bad_value_set_twice_in_dotenv_is_named_on_the_line_read(tmp_path):
    # python-dotenv reads the last of a name set twice (in any
    # case), and the error named the first line, whose value was fine
    env = tmp_path / ".env"
    env.write_text("REVIEW_NOTES_WORKERS=2\nTZ=UTC\n\nreview_notes_workers=99\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=None)
    said = "review_notes_workers: Input should be less than or equal to 32"
    assert str(exc.value) == f"{env}:4: {said}"
    # an unknown name set twice is named where it is first set, the first place to look
    env.write_text("REVIEW_NOTES_WORKER=2\nTZ=UTC\nREVIEW_NOTES_WORKER=3\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=None)
    assert str(exc.value).startswith(f"{env}:1: REVIEW_NOTES_WORKER: unknown setting")


GITHUB_IN_TOML = (
    "GitHub's settings are never read from this file (committed, and copied into the image)"
)


@pytest.mark.parametrize(
    ("key", "value", "place"),
    [
        ("github_token", "ghp_0123456789abcdef", "set GITHUB_TOKEN in the environment or .env"),
        ("GITHUB_APP_ID", "123456", "set GITHUB_APP_ID in the environment or .env"),
        (
            "github_private_key",
            PEM,
            "give the key in a file named by GITHUB_PRIVATE_KEY_PATH, or in"
            " GITHUB_PRIVATE_KEY, in the environment or .env",
        ),
        ("Github_Private_Key_Path", "app.pem", "set GITHUB_PRIVATE_KEY_PATH in the environment"),
        ("github_webhook_secret", "s3cret-value", "set GITHUB_WEBHOOK_SECRET in the environment"),
        (
            "github_previous_webhook_secret",
            "0ld-s3cret",
            "set GITHUB_PREVIOUS_WEBHOOK_SECRET in the environment",
        ),
        ("github_api_url", "https://ghe.example.org/api/v3", "set GITHUB_API_URL in the"),
    ],
)
def test_githubs_settings_in_bot_toml_are_refused_saying_where_they_go(tmp_path, key, value, place):
    # config/bot.toml said "GitHub credentials never go here" and took them all the same
    # (keys in any case, GitHub's names too), though it is committed and copied into the
    # image. Refused on the key's line, its value never shown; in the environment too.
    toml = tmp_path / "bot.toml"
    toml.write_text(f"# defaults\nworkers = 3\n\n{key} = {value!r}\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=None, toml_file=toml)
    assert str(exc.value).startswith(f"{toml}:4: {key}: {GITHUB_IN_TOML}: {place}")
    assert value not in str(exc.value)


def test_every_github_setting_in_bot_toml_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_from_the_environment")  # set where it goes too
    monkeypatch.setenv("REVIEW_NOTES_DRY_RUN", "true")
    toml = tmp_path / "bot.toml"
    toml.write_text('"GITHUB_TOKEN" = "x"\ncomment_on_drafts = true\ngithub_api_url = ""\n')
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=None, toml_file=toml)
    said = str(exc.value).splitlines()
    assert [line.split(f": {GITHUB_IN_TOML}")[0] for line in said] == [
        f"{toml}:1: GITHUB_TOKEN",
        f"{toml}:3: github_api_url",
    ]
    # the bot's own settings there, and GitHub's from the environment: as before
    toml.write_text("comment_on_drafts = true\n")
    read = load_settings(env_file=None, toml_file=toml)
    assert (
        read.comment_on_drafts
        and read.github_token.get_secret_value() == "ghp_from_the_environment"
    )


# kills: bot/settings.py:_set_at returned None for a value no source names (`None: ...`)
def test_a_bad_value_no_source_names_is_named_by_its_variable():
    from bot.settings import _set_at

    assert _set_at("REVIEW_NOTES_WORKERS", "workers", {}, None, {}, None) == (
        "REVIEW_NOTES_WORKERS"
    )


def test_dotenv_file_is_read(tmp_path):
    env = tmp_path / ".env"
    env.write_text("REVIEW_NOTES_WORKERS=5\nGITHUB_WEBHOOK_SECRET=from-dotenv\n")
    s = load_settings(env_file=env)
    assert s.workers == 5 and s.webhook_secret() == "from-dotenv"


def test_the_settings_know_which_dotenv_values_an_empty_variable_hid(tmp_path, monkeypatch):
    # the dry run's warning (`credentials_emptied`) is taken from the one read of .env
    env = tmp_path / ".env"
    env.write_text("github_token=ghp_intheenvfile\nREVIEW_NOTES_WORKERS=3\nTZ=UTC\n")
    assert load_settings(env_file=env, dry_run=True).passed_over_in_env_file == frozenset()
    monkeypatch.setenv("GITHUB_TOKEN", "")
    monkeypatch.setenv("review_notes_workers", " ")
    monkeypatch.setenv("TZ", "")
    s = load_settings(env_file=env)
    assert s.workers == 2 and s.is_dry_run
    assert s.passed_over_in_env_file == {"github_token", "workers"}
    assert credentials_emptied(s) == [
        "GITHUB_TOKEN: empty in the environment, so .env's value is not read (a dry run):"
        " unset it there to use .env's"
    ]


def test_a_dotenv_not_in_utf8_is_named(tmp_path):
    # the decoding error was reported as "config/bot.toml: not UTF-8"
    env = tmp_path / ".env"
    env.write_bytes("TZ=caf\u00e9\n".encode("latin-1"))
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env)
    assert str(exc.value) == f"{env}: not UTF-8 (byte 6): save it as UTF-8"


def test_dotenv_leaves_other_tools_variables_alone(tmp_path):
    # A .env shared with docker (`--env-file .env`) or compose holds their variables
    # too: `tz: unknown setting` stopped the server.
    env = tmp_path / ".env"
    env.write_text("TZ=UTC\nCOMPOSE_PROJECT_NAME=notes\nREVIEW_NOTES_WORKERS=5\n")
    s = load_settings(env_file=env)
    assert s.workers == 5 and s.is_dry_run


def test_an_unknown_setting_in_dotenv_is_named_as_written(tmp_path):
    # `review_notes_repo: unknown setting` is not what a case-sensitive grep finds.
    env = tmp_path / ".env"
    env.write_text("TZ=UTC\nREVIEW_NOTES_REPO=acme/repo\nGitHub_App_Key=x\n")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env)
    assert str(exc.value).splitlines() == [
        f"{env}:2: REVIEW_NOTES_REPO: unknown setting; did you mean REVIEW_NOTES_REPOS?",
        f"{env}:3: GitHub_App_Key: unknown setting",
    ]


def test_app_credentials_make_a_live_configuration(tmp_path):
    key = tmp_path / "app.pem"
    key.write_text(PEM)
    s = load(
        github_app_id="4242",
        github_private_key_path=key,
        github_webhook_secret=HOOK,
        public_url="https://notes.example.org/",
    )
    assert not s.is_dry_run and s.private_key_pem() == PEM
    assert s.links_base() == "https://notes.example.org"


@pytest.mark.parametrize(
    ("values", "names"),
    [
        ({"github_app_id": "1"}, ["GITHUB_PRIVATE_KEY"]),
        ({"github_private_key": PEM}, ["GITHUB_APP_ID"]),
        (
            {"github_app_id": "1", "github_private_key": PEM, "github_private_key_path": "k"},
            ["GITHUB_PRIVATE_KEY: set either"],
        ),
        ({"github_token": "t", "github_app_id": "1", "github_private_key": PEM}, ["GITHUB_TOKEN"]),
        ({"github_token": "t", "public_url": "https://x.org"}, ["GITHUB_WEBHOOK_SECRET"]),
        ({"github_token": "t", "github_webhook_secret": HOOK}, ["REVIEW_NOTES_PUBLIC_URL"]),
        (
            {"github_app_id": "1", "github_private_key": "not a key"},
            ["GITHUB_PRIVATE_KEY: not a PEM"],
        ),
        ({"github_app_id": "1", "github_private_key_path": "/nonexistent/k.pem"}, ["cannot read"]),
        ({"dry_run": False}, ["REVIEW_NOTES_DRY_RUN"]),
        ({"workers": 0}, ["REVIEW_NOTES_WORKERS"]),
        ({"command": "notes"}, ["REVIEW_NOTES_COMMAND"]),
        ({"repos": "vllm"}, ["REVIEW_NOTES_REPOS"]),
        ({"note_links": "wiki"}, ["REVIEW_NOTES_NOTE_LINKS"]),
        ({"address_repos_by": "owner"}, ["REVIEW_NOTES_ADDRESS_REPOS_BY"]),
        ({"note_links": "github"}, ["REVIEW_NOTES_NOTES_GITHUB_REPO"]),
        ({"github_api_url": "api.github.com"}, ["GITHUB_API_URL"]),
    ],
)
def test_bad_or_contradictory_settings_name_the_variable(values, names):
    text = errors(**values)
    for name in names:
        assert name in text


W = "a repository's address: write owner/name"


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("vllm-project/vllm.git", "drop the .git"),  # pasted from a clone URL
        ("acme/.", "'.' and '..' are no repository's name"),
        ("./..", "an account's name has only letters, digits, '-' and '_'"),
        ("acme.org/repo", "an account's name has only letters, digits, '-' and '_'"),
        ("acme/re po", "a repository's name has only letters, digits, '.', '-' and '_'"),
        ("acme/", "not owner/name"),
        ("/repo", "not owner/name"),
        ("acme/one/two", "not owner/name"),
        # kills: bot/settings.py:_repo_problem a repository's address said to be not owner/name
        (GH := "https://github.com/vllm-project/vllm", f"{W} (vllm-project/vllm)"),
        (f"{GH}/", f"{W} (vllm-project/vllm)"),
        (f"{GH}.git", f"{W} (vllm-project/vllm)"),
        ("git@github.com:vllm-project/vllm.git", f"{W} (vllm-project/vllm)"),
        ("github.com/Acme/re.po", f"{W} (Acme/re.po)"),
        (f"{GH}/pull/1", "not owner/name"),  # no plain owner/name to suggest
        ("https://gitlab.com/acme/repo", "not owner/name"),
        # kills: bot/settings.py:_repo_problem entries separated otherwise said not owner/name
        ("acme/a acme/b", "entries are separated by commas"),
        ("acme/a;acme/b", "entries are separated by commas"),
    ],
)
def test_an_allow_list_entry_no_repository_can_have_is_refused(entry, why):
    # (the address of a repository, as the browser shows it, or several on one line,
    # were "not owner/name" with nothing said of what to write)
    # Every event would be answered "not on the allow-list", with nothing else to warn.
    text = errors(repos=f"acme/ok, {entry}")
    assert text == f"REVIEW_NOTES_REPOS: {entry}: {why}"


@pytest.mark.parametrize(
    ("repo", "why"),
    [
        ("", "required (owner/name)"),
        ("acme/notes.git", "acme/notes.git: drop the .git"),  # pasted from a clone URL
        ("acme/..", "acme/..: '.' and '..' are no repository's name"),
        (
            "acme.org/notes",
            "acme.org/notes: an account's name has only letters, digits, '-' and '_'",
        ),
    ],
)
def test_a_notes_repository_no_repository_can_have_is_refused(repo, why):
    # Every note link in every comment would lead to a page that cannot exist.
    text = errors(note_links="github", notes_github_repo=repo)
    assert text == f"REVIEW_NOTES_NOTES_GITHUB_REPO: {why} (with REVIEW_NOTES_NOTE_LINKS=github)"
    assert load(note_links="github", notes_github_repo="Acme/review-notes_1.x").notes_github_repo


def test_allow_list_names_github_allows():
    names = "Codertocat/Hello-World,my_emu_user/x.y_z-1,a-b/.github,acme/git.gitignore"
    assert load(repos=names).repos == (
        "codertocat/hello-world",
        "my_emu_user/x.y_z-1",
        "a-b/.github",
        "acme/git.gitignore",
    )


@pytest.mark.parametrize("blank", ["", "  \t"])
@pytest.mark.parametrize(
    "credentials",
    [{"github_token": "ghp_" + "x" * 36}, {"github_app_id": "1", "github_private_key": PEM}],
)
def test_an_empty_webhook_secret_is_refused_when_posting_to_github(monkeypatch, blank, credentials):
    # An HMAC keyed with "" is one anyone can compute: every forged delivery would pass.
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", blank)
    text = errors(public_url="https://notes.example.org", **credentials)
    assert "GITHUB_WEBHOOK_SECRET: is empty; required when posting to GitHub" in text
    assert "ghp_" not in text


def test_a_missing_webhook_secret_or_public_url_says_what_value_to_give():
    # an operator going live read "GITHUB_WEBHOOK_SECRET: required when posting to GitHub"
    # and "REVIEW_NOTES_PUBLIC_URL: required ...", neither saying what to put there
    text = errors(github_token="ghp_" + "x" * 36).splitlines()
    (secret,) = [line for line in text if line.startswith("GITHUB_WEBHOOK_SECRET:")]
    assert "the same as the App's webhook secret" in secret, secret
    assert 'python3 -c "import secrets; print(secrets.token_hex(32))"' in secret, secret
    (url,) = [line for line in text if line.startswith("REVIEW_NOTES_PUBLIC_URL:")]
    assert "the https address reviewers' browsers reach this server at" in url, url
    assert "the App's webhook URL without /webhook" in url, url


@pytest.mark.parametrize("name", ["GITHUB_WEBHOOK_SECRET", "GITHUB_PREVIOUS_WEBHOOK_SECRET"])
@pytest.mark.parametrize("short", ["x7", "q9z", "p4ssw0rd-123456"])
def test_a_short_webhook_secret_is_refused_when_posting_to_github(monkeypatch, name, short):
    # A secret of a few characters is guessed by trying them all: a delivery (or a notes
    # comment's signature) forged with the guess passes, and the logs never hid it.
    live = {"github_token": "ghp_" + "x" * 36, "public_url": "https://notes.example.org"}
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", HOOK)
    monkeypatch.setenv(name, short)
    lines = errors(**live).splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{name}: is shorter than 16 characters")
    if name == "GITHUB_WEBHOOK_SECRET":  # how to make one, set in both places
        assert "openssl rand -hex 32" in lines[0] and "secrets.token_hex(32)" in lines[0]
        assert "in the App's webhook settings" in lines[0]
    else:  # a secret from before a rotation: none to make
        assert "leave it unset" in lines[0]
    assert short not in lines[0].removeprefix(name)  # the value is never shown
    monkeypatch.setenv(name, "p4ssw0rd-1234567")  # 16: enough
    assert not load(**live).is_dry_run
    monkeypatch.setenv(name, short)
    assert load().is_dry_run  # a dry run writes nothing to GitHub: any secret will do


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_webhook_secret_in_dry_run_means_the_dev_secret(monkeypatch, blank):
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", blank)
    for s in (load(), load(dry_run=True, github_token="t")):
        assert s.is_dry_run and s.uses_dev_secret
        assert s.webhook_secret() == DEV_WEBHOOK_SECRET


def test_a_key_on_one_line_with_escaped_newlines_is_the_key(monkeypatch, app_key):
    # `docker run --env-file` cannot hold a multi-line value: the key comes as one line
    # with literal "\n" escapes, which was refused as "not a usable RSA PEM key".
    from bot.server import live_github

    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    monkeypatch.setenv("GITHUB_PRIVATE_KEY", app_key.private_pem.replace("\n", "\\n"))
    s = load(**live)
    assert s.private_key_pem() == app_key.private_pem
    live_github(s)  # a usable RSA key
    # one real newline at its end (a secret made from an `echo`) is no newline of the key
    monkeypatch.setenv("GITHUB_PRIVATE_KEY", app_key.private_pem.replace("\n", "\\n") + "\n")
    live_github(load(**live))
    as_is = PEM.replace("MIIB", "MI\\nIB")  # with real newlines, a backslash is left alone
    assert load(github_private_key=as_is, **live).private_key_pem() == as_is


# kills: bot/settings.py:Settings._unescape_key a key escaped as a JSON string of a CRLF file
#   ("\r\n" escapes) left with a backslash and an r at each line's end: "not a usable RSA key"
def test_a_key_on_one_line_with_escaped_crlf_line_ends_is_the_key(monkeypatch, app_key):
    # the JSON string of a key file saved on Windows (terraform output -json, a vault
    # read), copied into .env as it shows
    from bot.server import live_github

    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    monkeypatch.setenv("GITHUB_PRIVATE_KEY", app_key.private_pem.replace("\n", "\\r\\n"))
    s = load(**live)
    assert s.private_key_pem() == app_key.private_pem
    live_github(s)  # a usable RSA key


# kills: bot/settings.py:_read_key a key file holding the key on one line with escapes
@pytest.mark.parametrize(("escape", "encoding"), [("\\n", "utf-8"), ("\\r\\n", "utf-16")])
def test_a_key_file_holding_the_key_on_one_line_with_escapes_is_the_key(
    tmp_path, app_key, escape, encoding
):
    # The value a secret store gives (or the env file's line) written to a file, `echo
    # "$KEY" > app.pem`: the same text in GITHUB_PRIVATE_KEY is the key, in the file it
    # was "not a usable RSA PEM key"
    from bot.server import live_github

    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    one_line = app_key.private_pem.replace("\n", escape) + "\n"
    (tmp_path / "app.pem").write_text(one_line, encoding)
    s = load(github_private_key_path=str(tmp_path / "app.pem"), **live)
    assert s.private_key_pem() == app_key.private_pem
    live_github(s).close()  # a usable RSA key
    # a file with real newlines is read as it is, a backslash in it left alone
    as_is = PEM.replace("MIIB", "MI\\nIB")
    (tmp_path / "app.pem").write_text(as_is, "utf-8")
    assert (
        load(github_private_key_path=str(tmp_path / "app.pem"), **live).private_key_pem() == as_is
    )


# kills: bot/settings.py:Settings._home_is_expanded a path setting's `~` kept as written
def test_every_path_setting_starting_with_a_tilde_is_under_the_home(monkeypatch, tmp_path):
    # as a shell would expand it; `~name` of no user stays as written, as in a shell
    monkeypatch.setenv("HOME", str(tmp_path))
    fields = ("db_path", "notes_dir", "topics_file", "matching_file")
    s = load(**{f: f"~/{f}" for f in fields})
    assert [getattr(s, f) for f in fields] == [tmp_path / f for f in fields]
    assert str(load(db_path="~nosuchuser/bot.sqlite3").db_path) == "~nosuchuser/bot.sqlite3"
    said = errors(github_app_id="1", github_private_key_path="~/app.pem")
    assert f"GITHUB_PRIVATE_KEY_PATH: cannot read {tmp_path}/app.pem" in said, said


def _pem(key, fmt=serialization.PrivateFormat.PKCS8, password: bytes | None = None) -> str:
    protect = serialization.NoEncryption()
    if password is not None:
        protect = serialization.BestAvailableEncryption(password)
    return key.private_bytes(serialization.Encoding.PEM, fmt, protect).decode()


def _one_line(pem: str) -> str:
    """The key on one line with literal \\n escapes, for an env file, as the recipe often
    copied for it (awk 'NF {...}' key.pem) makes it: NF passes over blank lines, so an
    OpenSSL encrypted key loses the one after its DEK-Info header, and no longer parses."""
    return "".join(f"{line}\\n" for line in pem.splitlines() if line.strip())


_RSA = rsa.generate_private_key(public_exponent=65537, key_size=2048)
_PASSPHRASE = "GitHub App private key is encrypted (it needs a passphrase): the key GitHub"
_NOT_RSA = "; GitHub App keys are RSA: download the App's private key from its settings page"
_DAMAGED = (
    "GitHub App private key is not a usable RSA PEM key: it does not parse (cut short or"
    " changed in a copy?): give the whole file GitHub downloaded, from its BEGIN line to its"
    " END line, or generate a new key in the App's settings"
)


@pytest.mark.parametrize(
    ("pem", "expected"),
    [
        pytest.param(_pem(_RSA, password=b"pw"), _PASSPHRASE, id="encrypted-pkcs8"),
        pytest.param(
            _pem(_RSA, serialization.PrivateFormat.TraditionalOpenSSL, b"pw"),
            _PASSPHRASE,
            id="encrypted-traditional",
        ),
        # kills: bot/github_sessions.py:key_problem an encrypted key that does not parse
        #   said "not a usable RSA PEM key" (its Proc-Type header left unread)
        pytest.param(
            _one_line(_pem(_RSA, serialization.PrivateFormat.TraditionalOpenSSL, b"pw")),
            _PASSPHRASE,
            id="encrypted-traditional-blank-line-lost",
        ),
        pytest.param(
            _one_line(
                _pem(
                    ec.generate_private_key(ec.SECP256R1()),
                    serialization.PrivateFormat.TraditionalOpenSSL,
                    b"pw",
                )
            ),
            _PASSPHRASE,
            id="encrypted-ec-traditional-blank-line-lost",
        ),
        # kills: bot/github_sessions.py:key_problem an encrypted PKCS#8 key cut short (its
        #   last lines lost in a copy) said "not a usable RSA PEM key"
        pytest.param(
            "\n".join(
                _pem(ed25519.Ed25519PrivateKey.generate(), password=b"pw").splitlines()[:2]
                + ["-----END ENCRYPTED PRIVATE KEY-----", ""]
            ),
            _PASSPHRASE,
            id="encrypted-pkcs8-cut-short",
        ),
        pytest.param(
            _pem(ec.generate_private_key(ec.SECP256R1())), f"is an EC key{_NOT_RSA}", id="ec"
        ),
        pytest.param(
            _pem(
                ec.generate_private_key(ec.SECP384R1()),
                serialization.PrivateFormat.TraditionalOpenSSL,
            ),
            f"is an EC key{_NOT_RSA}",
            id="ec-traditional",
        ),
        pytest.param(
            _pem(ed25519.Ed25519PrivateKey.generate()), f"is an Ed25519 key{_NOT_RSA}", id="ed25519"
        ),
        pytest.param(  # ~/.ssh/id_rsa given for the App's key: RSA, but not the App's
            _RSA.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.OpenSSH,
                serialization.NoEncryption(),
            ).decode(),
            "GitHub App private key is an SSH key (ssh-keygen's, as in ~/.ssh), not the App's:"
            " download the App's private key from its settings page",
            id="openssh",
        ),
        # kills: bot/github_sessions.py:key_problem a key of no kind it names said "None"
        pytest.param(
            _pem(x25519.X25519PrivateKey.generate()),
            "GITHUB_PRIVATE_KEY: GitHub App private key is not a usable RSA PEM key",
            id="x25519-cannot-sign",
        ),
        # a key that does not parse was "not a usable RSA PEM key" and no more: what to
        # give instead was left to guess (an operator who ran the App from the docs alone)
        pytest.param(PEM, f"GITHUB_PRIVATE_KEY: {_DAMAGED}", id="broken"),
        pytest.param(  # its last lines lost in a copy
            "\n".join(_pem(_RSA, serialization.PrivateFormat.TraditionalOpenSSL).splitlines()[:9]),
            f"GITHUB_PRIVATE_KEY: {_DAMAGED}",
            id="cut-short",
        ),
    ],
)
def test_a_key_that_cannot_sign_says_what_is_wrong_with_it(monkeypatch, pem, expected):
    # Each was "not a usable RSA PEM key", which sends the operator to regenerate a key
    # when they had protected GitHub's download with a passphrase or picked another file.
    from bot.server import live_github

    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    monkeypatch.setenv("GITHUB_PRIVATE_KEY", pem)
    with pytest.raises(SettingsError) as caught:
        live_github(load(**live))
    assert expected in str(caught.value) and str(caught.value).startswith("GITHUB_PRIVATE_KEY: ")
    assert "PRIVATE KEY-----" not in str(caught.value)


# kills: bot/settings.py:_read_key a key file in UTF-16 (with its mark) said to be no PEM text file
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_key_file_saved_as_utf16_is_the_key(tmp_path, encoding):
    # Windows PowerShell's `$key > app.pem` (5.1's default) and Notepad's 'Unicode' save
    # UTF-16 with a byte order mark: "is not a PEM text file", of the App's own key
    from bot.server import live_github

    pem = _pem(_RSA, serialization.PrivateFormat.TraditionalOpenSSL)
    data = pem.encode(encoding)
    if encoding == "utf-16-be":  # (Python's utf-16 writes the mark; the -be codec does not)
        data = b"\xfe\xff" + data
    (tmp_path / "app.pem").write_bytes(data)
    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    settings = load(github_private_key_path=str(tmp_path / "app.pem"), **live)
    assert settings.private_key_pem() == pem
    live_github(settings)  # a usable RSA key


# kills: bot/settings.py:Settings._consistent a base64-encoded key said to be no PEM key
# kills: bot/settings.py:_check_pem_file a key file holding the key base64-encoded said no PEM key
@pytest.mark.parametrize("where", ["value", "file"])
def test_a_key_given_base64_encoded_says_to_decode_it(tmp_path, where):
    # A Kubernetes secret's data: value copied as it is (or encoded twice through
    # stringData), or `base64 app.pem` (lines of 76): "not a PEM private key", of a key
    # that is one, once decoded
    pem = _pem(_RSA, serialization.PrivateFormat.TraditionalOpenSSL).encode()
    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    if where == "value":
        said = errors(github_private_key=base64.b64encode(pem).decode(), **live)
    else:
        (tmp_path / "app.pem").write_text(base64.encodebytes(pem).decode(), "utf-8")
        said = errors(github_private_key_path=str(tmp_path / "app.pem"), **live)
    name = "GITHUB_PRIVATE_KEY: " if where == "value" else f"GITHUB_PRIVATE_KEY_PATH: {tmp_path}/"
    assert said.startswith(name), said
    assert "holds a PEM private key base64-encoded (as a Kubernetes secret's data: holds" in said
    assert "give the key itself, decoded (base64 -d)" in said


_PUBLIC = {
    "spki": _RSA.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ),
    "pkcs1": _RSA.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.PKCS1
    ),
    "ssh": _RSA.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    ),
}


# kills: bot/settings.py:_other_text a public key said to be no PEM private key
@pytest.mark.parametrize("where", ["value", "file"])
@pytest.mark.parametrize("kind", sorted(_PUBLIC))
def test_a_public_key_given_as_the_app_s_key_is_named_as_such(tmp_path, where, kind):
    # The public half at hand (`openssl rsa -pubout`, an SSH .pub) was "not a PEM private
    # key", as for any other text: nothing said which file to give instead
    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    if where == "value":
        said = errors(github_private_key=_PUBLIC[kind].decode(), **live)
    else:
        (tmp_path / "app.pem").write_bytes(_PUBLIC[kind])
        said = errors(github_private_key_path=str(tmp_path / "app.pem"), **live)
    name = "GITHUB_PRIVATE_KEY: " if where == "value" else f"GITHUB_PRIVATE_KEY_PATH: {tmp_path}/"
    assert said.startswith(name), said
    assert "holds a public key, not the private key: give the App's private key" in said


# kills: bot/settings.py:_not_a_key a path given as the key said to be no PEM private key
@pytest.mark.parametrize("path", ["/run/secrets/app.pem", "./app.pem", "~/keys/review-notes.pem"])
def test_a_key_file_s_path_given_as_the_key_says_to_set_the_path_setting(path):
    # GITHUB_PRIVATE_KEY=/run/secrets/app.pem (the key's file, as a secret store mounts
    # it) was "not a PEM private key (-----BEGIN ... KEY-----)": the operator read it as
    # the file's fault, which was fine
    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    said = errors(github_private_key=path, **live)
    assert said.startswith("GITHUB_PRIVATE_KEY: holds a path (not shown), not the key: set"), said
    assert "GITHUB_PRIVATE_KEY_PATH to the key file's path" in said
    assert path not in said
    # a secret's shape is no path: not taken for one
    said = errors(github_private_key="ghp_abcdefghijklmnopqrstuvwxyz0123456789", **live)
    assert said == "GITHUB_PRIVATE_KEY: not a PEM private key (-----BEGIN ... KEY-----)"


@pytest.mark.parametrize("key", [PEM, PEM.replace("\n", " ")])
def test_a_key_given_as_the_key_path_is_named_and_never_printed(key):
    # "cannot read <path>" would print the key itself, into a terminal or the logs.
    text = errors(github_app_id="1", github_private_key_path=key)
    assert "GITHUB_PRIVATE_KEY_PATH: holds a key, not a path: use GITHUB_PRIVATE_KEY" in text
    assert "MIIBOgIBAAJBAK" not in text


@pytest.mark.parametrize(
    "secret",
    [
        base64.b64encode(PEM.encode()).decode(),  # a key as Kubernetes secrets hold it
        base64.b64encode(PEM.encode() * 30).decode(),  # a full-size one, with "/" in it
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",  # a token in the wrong variable
        "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
        "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
        "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5",  # anything long, no path separator
    ],
)
def test_a_secret_given_as_the_key_path_is_never_printed(secret):
    # Only "PRIVATE KEY" or a newline was caught; anything else was echoed in full, as
    # "cannot read <value>: File name too long".
    text = errors(github_app_id="1", github_private_key_path=secret)
    assert "GITHUB_PRIVATE_KEY_PATH: " in text
    assert not any(part in text for part in re.findall(r"[A-Za-z0-9+=_]{12,}", secret))


@pytest.mark.parametrize("path", ["/run/secrets/app.pem", "app.pem", "keys/review-notes.pem"])
def test_a_missing_key_file_is_named(path):
    text = errors(github_app_id="1", github_private_key_path=path)
    assert f"GITHUB_PRIVATE_KEY_PATH: cannot read {path}: No such file or directory" in text


def test_a_key_path_that_is_a_directory_says_how_docker_made_it(tmp_path):
    # `docker run -v "$PWD/app.pem:/run/secrets/app.pem:ro"` with no app.pem on the host
    # mounts a new empty directory there: "Is a directory" left the operator guessing.
    mounted = tmp_path / "app.pem"
    mounted.mkdir()
    text = errors(github_app_id="1", github_private_key_path=str(mounted))
    assert f"GITHUB_PRIVATE_KEY_PATH: {mounted} is a directory, not the key's file" in text
    assert "docker run -v" in text, text


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "GITHUB_PRIVATE_KEY", "GITHUB_PRIVATE_KEY_PATH"])
@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_credential_is_no_credential(monkeypatch, name, blank):
    # `GITHUB_TOKEN=` turned on live mode with nothing to sign in with, and the error
    # then blamed another variable; empty means unset, as for GITHUB_APP_ID.
    monkeypatch.setenv(name, blank)
    s = load()
    assert s.is_dry_run and not s.has_credentials


def test_a_mounted_secret_files_line_end_is_not_part_of_it(monkeypatch):
    # a token or secret from a file (`--from-file`) ends in a
    # newline. The token then failed every call (no HTTP header holds one) after a clean
    # start; the secret failed every signature check, 401, logging nothing
    token = "ghp_" + "Q7" * 18
    monkeypatch.setenv("GITHUB_TOKEN", f"{token}\r\n")
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", "s3cret with spaces\n")
    s = load(public_url="https://notes.example.org")
    assert s.github_token is not None and s.github_token.get_secret_value() == token
    assert s.webhook_secret() == "s3cret with spaces"  # spaces may be the secret's
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abc def")
    text = errors(public_url="https://notes.example.org")
    assert "GITHUB_TOKEN: holds whitespace inside, which no GitHub token does" in text
    assert "ghp_abc" not in text


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_host_means_the_default_not_every_interface(monkeypatch, blank):
    # `REVIEW_NOTES_HOST=` (a template's empty line) was kept as "", which uvicorn binds
    # on every interface: the dry run's well-known secret and /metrics on the network.
    monkeypatch.setenv("REVIEW_NOTES_HOST", blank)
    assert load().host == "127.0.0.1"
    assert load(host=blank).host == "127.0.0.1"  # `serve --host ""`


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_url_setting_means_the_default(monkeypatch, blank):
    # `REVIEW_NOTES_PUBLIC_URL=` or `GITHUB_API_URL=` (a
    # template's empty line) stopped even a dry run: "must be an http(s) URL"
    monkeypatch.setenv("REVIEW_NOTES_PUBLIC_URL", blank)
    monkeypatch.setenv("GITHUB_API_URL", blank)
    s = load()
    assert s.public_url is None and s.github_api_url == "https://api.github.com"
    assert s.is_dry_run
    # live, an empty public URL is one not given: the pages links still need it
    live = {"github_token": "ghp_abc", "github_webhook_secret": HOOK}
    assert "REVIEW_NOTES_PUBLIC_URL" in errors(**live)


@pytest.mark.parametrize("blank", ["", "  "])
@pytest.mark.parametrize(
    "name", ["NOTES_DIR", "TOPICS_FILE", "MATCHING_FILE", "NOTES_GITHUB_BRANCH"]
)
def test_an_empty_library_setting_means_the_default(monkeypatch, name, blank):
    # `REVIEW_NOTES_NOTES_DIR=` (a template's empty line) was the
    # working directory, Path(""): the start failed on `.:1: notes: no notes (*.md
    # files) in this directory`, naming no variable (the topics and matching files the
    # same with "Is a directory"), and an empty branch made every `github` note link
    # `blob//...`, which GitHub answers 404.
    field = name.lower()
    monkeypatch.setenv(f"REVIEW_NOTES_{name}", blank)
    assert getattr(load(), field) == Settings.model_fields[field].default


# every setting given as a number, a yes/no or one of a few words: none has an empty value
_SCALARS = [
    field
    for field, info in Settings.model_fields.items()
    if info.annotation in (int, float, bool, bool | None)
    or getattr(info.annotation, "__origin__", None) is Literal
]


@pytest.mark.parametrize("blank", ["", "  "])
@pytest.mark.parametrize("field", _SCALARS)
def test_an_empty_number_yes_no_or_choice_setting_means_the_default(monkeypatch, field, blank):
    # `REVIEW_NOTES_MAX_DEFERRALS=` (a template's empty line) stopped the start: "unable
    # to parse string as an integer", where an empty host, URL or library path meant the
    # default, as a comment said of every setting
    monkeypatch.setenv(f"REVIEW_NOTES_{field.upper()}", blank)
    assert getattr(load(), field) == Settings.model_fields[field].default


def test_an_empty_number_in_dotenv_or_bot_toml_means_the_default(tmp_path):
    env, toml = tmp_path / ".env", tmp_path / "bot.toml"
    env.write_text("REVIEW_NOTES_MAX_DEFERRALS=\nREVIEW_NOTES_DRY_RUN=\n", "utf-8")
    toml.write_text('workers = ""\nlog_level = " "\n', "utf-8")
    s = load_settings(env_file=env, toml_file=toml)
    assert (s.max_deferrals, s.dry_run, s.workers, s.log_level) == (14, None, 2, "INFO")


def test_an_empty_value_means_bot_tomls_where_it_sets_one(tmp_path, monkeypatch):
    # `REVIEW_NOTES_WORKERS=` in a compose file meant the code's 2 where the operator's
    # config/bot.toml said 4: empty is "as shipped", and what ships is bot.toml's value
    # (the shipped file's values are the code's defaults: a bot.toml of one's own shows it)
    toml, env = tmp_path / "bot.toml", tmp_path / ".env"
    toml.write_text('workers = 4\nhost = "0.0.0.0"\nopt_out_label = "skip"\n', "utf-8")
    env.write_text("REVIEW_NOTES_HOST=\nREVIEW_NOTES_PORT=\n", "utf-8")
    monkeypatch.setenv("REVIEW_NOTES_WORKERS", "  ")
    monkeypatch.setenv("REVIEW_NOTES_OPT_OUT_LABEL", "")
    s = load_settings(env_file=env, toml_file=toml)
    assert (s.workers, s.host, s.port) == (4, "0.0.0.0", 8000)  # the port: none in bot.toml
    assert s.opt_out_label == ""  # empty says something here: no label opts out
    assert load_settings(env_file=env, toml_file=toml, host="").host == "0.0.0.0"  # --host ""
    # bot.toml's value read is named where it is set, not by the empty variable
    toml.write_text("workers = 99\n", "utf-8")
    env.write_text("REVIEW_NOTES_WORKERS=3\nREVIEW_NOTES_WORKERS=\n", "utf-8")  # the last read
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=toml)
    assert str(exc.value) == f"{toml}:1: workers: Input should be less than or equal to 32"


def test_an_empty_value_is_not_a_later_sources_value(tmp_path, monkeypatch):
    # empty is "as shipped", bot.toml's else the default, not .env's: `GITHUB_TOKEN=
    # review-notes serve` in a checkout whose .env holds the token went live with it, and
    # `serve --host ""` bound the .env's address (both meant the default before)
    toml, env = tmp_path / "bot.toml", tmp_path / ".env"
    toml.write_text("workers = 4\n", "utf-8")
    live = f"GITHUB_WEBHOOK_SECRET={HOOK}\nREVIEW_NOTES_PUBLIC_URL=https://x.org\n"
    env.write_text(f"GITHUB_TOKEN=ghp_abc\nREVIEW_NOTES_WORKERS=3\nREVIEW_NOTES_HOST=::\n{live}")
    monkeypatch.setenv("GITHUB_TOKEN", "")
    monkeypatch.setenv("REVIEW_NOTES_WORKERS", " ")
    s = load_settings(env_file=env, toml_file=toml, host="")
    assert (s.github_token, s.is_dry_run, s.workers, s.host) == (None, True, 4, "127.0.0.1")
    # a bad value read from bot.toml is named there, not by .env's line it shadowed
    toml.write_text("workers = 99\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=toml)
    assert str(exc.value) == f"{toml}:1: workers: Input should be less than or equal to 32"
    monkeypatch.delenv("REVIEW_NOTES_WORKERS")  # an argument left empty, likewise
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=toml, workers="")
    assert str(exc.value) == f"{toml}:1: workers: Input should be less than or equal to 32"


def test_a_value_a_cross_check_refuses_is_named_where_it_was_set(tmp_path, monkeypatch):
    # the checks of several settings together named the variable alone,
    # a value read from .env or bot.toml too (`GITHUB_PRIVATE_KEY: not a PEM private
    # key` of .env's line 3), where every other bad value is named by its file and line
    toml, env = tmp_path / "bot.toml", tmp_path / ".env"
    toml.write_text('note_links = "github"\nnotes_github_repo = "acme"\n', "utf-8")
    env.write_text("TZ=UTC\nGITHUB_APP_ID=1\nGITHUB_PRIVATE_KEY=not-a-key\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=toml, dry_run=True)
    assert str(exc.value).split("\n") == [
        f"{env}:3: GITHUB_PRIVATE_KEY: not a PEM private key (-----BEGIN ... KEY-----)",
        f"{toml}:2: notes_github_repo: acme: not owner/name (with REVIEW_NOTES_NOTE_LINKS=github)",
    ]
    # set in the environment, or not set at all: the variable, as before
    monkeypatch.setenv("REVIEW_NOTES_NOTES_GITHUB_REPO", "acme")
    monkeypatch.setenv("GITHUB_PRIVATE_KEY", "")  # passes over .env's: none is set
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=toml, dry_run=True)
    assert str(exc.value).split("\n") == [
        "GITHUB_PRIVATE_KEY: GITHUB_APP_ID is set but no private key is",
        "REVIEW_NOTES_NOTES_GITHUB_REPO: acme: not owner/name (with"
        " REVIEW_NOTES_NOTE_LINKS=github)",
    ]


def test_an_empty_setting_whose_emptiness_says_something_keeps_it(monkeypatch):
    # no label opts out; the files are never looked at again; the note files are at the
    # repository's root; a database path or an allow-list is never guessed
    for name in ("OPT_OUT_LABEL", "FILES_RECHECK_DELAYS", "NOTES_GITHUB_DIR"):
        monkeypatch.setenv(f"REVIEW_NOTES_{name}", "")
    s = load()
    assert (s.opt_out_label, s.files_recheck_delays, s.notes_github_dir) == ("", (), "")
    monkeypatch.setenv("REVIEW_NOTES_DB_PATH", "")
    monkeypatch.setenv("REVIEW_NOTES_REPOS", "")
    text = errors()
    assert "REVIEW_NOTES_DB_PATH: is empty" in text and "REVIEW_NOTES_REPOS: the allow-list" in text


def test_an_unknown_review_notes_variable_is_named_with_the_closest_setting():
    # REVIEW_NOTES_REPO=acme/repo (docker -e, systemd) was ignored without a word, the
    # bot answering for the default allow-list. A warning, not an error: other tools
    # may set variables with this prefix.
    environ = {
        "REVIEW_NOTES_REPO": "acme/repo",
        "review_notes_Wrokers": "4",
        "REVIEW_NOTES_SIDECAR_TOKEN": "x",
        "REVIEW_NOTES_REPOS": "acme/repo",
        "review_notes_port": "8001",  # the settings read names in any case
        "GITHUB_SHA": "abc",  # GitHub Actions sets many: not ours to judge
    }
    assert unknown_variables(environ) == [
        "REVIEW_NOTES_REPO: not a review-notes setting, ignored; did you mean REVIEW_NOTES_REPOS?",
        "REVIEW_NOTES_SIDECAR_TOKEN: not a review-notes setting, ignored",
        "review_notes_Wrokers: not a review-notes setting, ignored; did you mean"
        " REVIEW_NOTES_WORKERS?",
    ]


# kills: bot/settings.py:unknown_variables GITHUB_* names close to ours not named
# kills: bot/settings.py:_unknown a GITHUB_* name close to none of ours named all the same
def test_a_github_variable_close_to_a_credential_is_named_when_asked():
    # GITHUB_APP_PRIVATE_KEY (the name other tools give the App's key), or docker's
    # secrets' GITHUB_PRIVATE_KEY_FILE: the start said only "GITHUB_APP_ID is set but no
    # private key is", the key set under a name it does not read
    environ = {
        "GITHUB_APP_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----",
        "GITHUB_PRIVATE_KEY_FILE": "/run/secrets/app.pem",
        "github_webhook_secrets": "s",
        "REVIEW_NOTES_DB_FILE": "/data/bot.sqlite3",
        "GITHUB_APP_ID": "1",  # ours
        # GitHub Actions' own: close to none of ours
        **dict.fromkeys(["GITHUB_SHA", "GITHUB_ACTOR_ID", "GITHUB_SERVER_URL", "GITHUB_PATH"], "x"),
    }
    mean = "not a review-notes setting, ignored; did you mean"
    assert unknown_variables(environ, github=True) == [
        f"REVIEW_NOTES_DB_FILE: {mean} REVIEW_NOTES_DB_PATH?",
        f"GITHUB_APP_PRIVATE_KEY: {mean} GITHUB_PRIVATE_KEY?",
        f"GITHUB_PRIVATE_KEY_FILE: {mean} GITHUB_PRIVATE_KEY_PATH?",
        f"github_webhook_secrets: {mean} GITHUB_WEBHOOK_SECRET?",
    ]
    # not asked (a start that went well): GITHUB_* names are other tools' to set
    assert unknown_variables(environ) == [f"REVIEW_NOTES_DB_FILE: {mean} REVIEW_NOTES_DB_PATH?"]


def test_env_errors_name_the_env_variable(monkeypatch):
    monkeypatch.setenv("REVIEW_NOTES_PORT", "eighty")
    assert "REVIEW_NOTES_PORT" in errors()


def test_secrets_never_print():
    s = load(
        github_token="ghp_supersecret",
        github_webhook_secret=HOOK,
        public_url="https://x.org",
    )
    text = repr(s) + str(s) + str(s.model_dump())
    assert "ghp_supersecret" not in text and HOOK not in text


def test_file_recheck_delays_from_toml_and_env(tmp_path, monkeypatch):
    assert load().files_recheck_delays == (5.0, 30.0, 120.0)  # config/bot.toml
    monkeypatch.setenv("REVIEW_NOTES_FILES_RECHECK_DELAYS", "1, 2.5")
    assert load_settings(env_file=None).files_recheck_delays == (1.0, 2.5)
    monkeypatch.setenv("REVIEW_NOTES_FILES_RECHECK_DELAYS", "")
    assert load_settings(env_file=None).files_recheck_delays == ()
    monkeypatch.setenv("REVIEW_NOTES_FILES_RECHECK_DELAYS", "5, -1")
    with pytest.raises(SettingsError, match="FILES_RECHECK_DELAYS"):
        load_settings(env_file=None)


def test_delivery_retention_covers_githubs_redelivery_window():
    # Shorter than GitHub's 3 days, a redelivery of a done delivery would run it again.
    assert load().delivery_retention_days == 14
    assert "REVIEW_NOTES_DELIVERY_RETENTION_DAYS" in errors(delivery_retention_days=2)


# --- .env lines that are no assignment ------------------------------------------------


def test_a_malformed_env_line_is_an_error_naming_the_file_and_line(tmp_path):
    # A YAML habit in .env: `REVIEW_NOTES_REPOS: a/b,c/d`. python-dotenv warns (three
    # times, naming no file) and drops the line: the server starts serving the default
    # allow-list only, the fork is silently left out. An unknown name in .env stops the
    # start (docs/settings.md); a line that is no assignment at all should too.
    (tmp_path / ".env").write_text(
        "REVIEW_NOTES_WORKERS=2\nREVIEW_NOTES_REPOS: vllm-project/vllm,my-org/vllm-fork\n"
    )
    q_db = tmp_path / "bot.sqlite3"
    from bot.db import Database
    from bot.queue import DeliveryQueue

    DeliveryQueue(Database(q_db))
    r = run_cli(tmp_path, "retry")
    clear_error(r, ".env")
    assert ".env:2" in r.stderr or "line 2" in r.stderr


def test_an_unclosed_quote_in_env_is_named_by_line(tmp_path):
    env = tmp_path / ".env"
    env.write_text('REVIEW_NOTES_WORKERS=2\n\nREVIEW_NOTES_REPOS="a/b\n', "utf-8")
    with pytest.raises(SettingsError, match=r"\.env:3: not a NAME=value line"):
        load_settings(env_file=env, toml_file=None)


# python-dotenv numbers a line by where the blank lines before it start: one holding a
# space or a tab (a template's indent), or a CRLF file's empty one, was taken for none,
# and the line before was named
@pytest.mark.parametrize(
    ("eol", "blank"), [("\n", "\t\n"), ("\n", " \n"), ("\n", "\n \n"), ("\r\n", "\r\n")]
)
@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("REVIEW_NOTES_WORKERS: 3", "not a NAME=value line"),
        ("REVIEW_NOTES_WORKERS=99", "REVIEW_NOTES_WORKERS: Input should be less than"),
        ("GITHUB_WEBHOOK_SECRET=s3cret-of-the-hook ", "GITHUB_WEBHOOK_SECRET: starts or ends"),
    ],
)
def test_a_dotenv_line_after_blank_ones_is_named_by_its_number(tmp_path, eol, blank, line, said):
    env = tmp_path / ".env"
    env.write_bytes(f"TZ=UTC{eol}{blank}{line}{eol}".encode())
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=None)
    number = 2 + blank.count("\n")
    assert str(exc.value).startswith(f"{env}:{number}: {said}"), str(exc.value)


def test_a_key_pasted_over_several_lines_of_env_unquoted_says_how_to_set_it(tmp_path):
    # An operator's walkthrough of App mode: the App's key pasted into .env as it is,
    # unquoted, was refused as ".env:31: not a NAME=value line", naming its END line
    # (python-dotenv takes the lines before it for names without a value): how to give
    # a key of several lines was left to guess.
    pem = _pem(_RSA, serialization.PrivateFormat.TraditionalOpenSSL)
    env = tmp_path / ".env"
    env.write_text(f"REVIEW_NOTES_WORKERS=2\nGITHUB_PRIVATE_KEY={pem}", "utf-8")
    with pytest.raises(SettingsError) as caught:
        load_settings(env_file=env, toml_file=None)
    said = str(caught.value)
    end = pem.count("\n") + 1  # the END line's number in the file
    assert said.startswith(f"{env}:{end}: not a NAME=value line"), said
    assert "double quotes" in said and "GITHUB_PRIVATE_KEY_PATH" in said, said
    assert "PRIVATE KEY-----" not in said  # the line is named, not shown


# --- URLs no link or call can be built on ---------------------------------------------


@pytest.mark.parametrize(
    ("value", "why"),
    [
        # python-dotenv drops an inline comment, docker's --env-file keeps it in the value
        ("https://notes.example.org # production", "an inline comment"),
        ("https://notes.example.org:84a3", "the port '84a3' is not a number"),
        ("https://notes.example.org?x=1", "a query"),
        # a space or a control character inside, no host
        ("https://notes example.org", "holds whitespace or a control character"),
        ("https://notes.example.org/\x07", "holds whitespace or a control character"),
        ("https://:443/review-notes", "names no host"),
        ("https://user@/review-notes", "names no host"),
    ],
    ids=[
        "inline-comment-via-docker-env-file",
        "bad-port",
        "query",
        "space-inside",
        "control-character",
        "port-no-host",
        "user-no-host",
    ],
)
@pytest.mark.parametrize("field", ["public_url", "github_api_url"])
def test_a_url_no_link_or_call_can_be_built_on_is_refused_saying_why(field, value, why):
    # `_check_url` only checked that the value *started* like a URL: what followed was
    # kept in every "full guidance" link of every comment (`(https://notes.example.org\n
    # /notes/vllm-...)` is no Markdown link) or every API call, and nobody was told.
    from bot.settings import env_name

    text = errors(**{field: value})
    assert text.startswith(f"{env_name(field)}: ") and why in text, text
    assert value.strip() not in text  # GITHUB_API_URL may carry a user and password


def test_a_url_with_a_port_and_a_path_is_still_a_base():
    s = load(public_url="https://notes.example.org:8443/review-notes/")
    assert s.links_base() == "https://notes.example.org:8443/review-notes"
    assert load(github_api_url="https://[::1]:8080/api/v3").github_api_url.endswith(":8080/api/v3")


# --- constants of code made settings --------------------------------------------------


def test_put_backs_and_the_refusal_log_spacing_are_settings():
    # both were constants in code (bot/queue.py, bot/webhook.py): config/bot.toml's now
    s = load()
    assert (s.max_deferrals, s.seconds_between_unverified_logs) == (14, 60.0)
    s = load(max_deferrals=2, seconds_between_unverified_logs=5)
    assert (s.max_deferrals, s.seconds_between_unverified_logs) == (2, 5.0)
    assert "REVIEW_NOTES_MAX_DEFERRALS" in errors(max_deferrals=0)
    assert "REVIEW_NOTES_MAX_DEFERRALS" in errors(max_deferrals=101)
    assert "REVIEW_NOTES_SECONDS_BETWEEN_UNVERIFIED_LOGS" in errors(
        seconds_between_unverified_logs=0.5
    )


# kills: bot/settings.py max_deferrals' default written apart from the queue's (14 -> 15):
#   the settings name the number rather than import bot.queue, whose imports (the database,
#   the PR state, the GitHub port) every command that reads the settings paid for
def test_the_put_backs_default_is_the_queues():
    from bot.queue import MAX_DEFERRALS
    from bot.settings import Settings

    assert Settings.model_fields["max_deferrals"].default == MAX_DEFERRALS
    assert load().max_deferrals == MAX_DEFERRALS


def test_the_5xx_back_off_cap_is_a_setting_the_live_client_gets():
    # it was hard-wired in server.live_github as max(retry_backoff, 30)
    from bot.server import live_github

    assert load().retry_backoff_max == 30.0  # config/bot.toml: the old constant
    assert load(retry_backoff_max=7).retry_backoff_max == 7.0
    for bad in (-1, 3601):
        assert "REVIEW_NOTES_RETRY_BACKOFF_MAX" in errors(retry_backoff_max=bad)
    live = {"github_token": "ghp_" + "a" * 36, "github_webhook_secret": HOOK}
    live["public_url"] = "https://x.org"
    for given, backoff_max in (
        ({}, 30.0),
        ({"retry_backoff_max": 7}, 7.0),
        ({"retry_backoff": 45, "retry_backoff_max": 7}, 45.0),  # never under the first wait
    ):
        client = live_github(load(**live, **given))
        try:
            assert client.policy.backoff_max == backoff_max, given
        finally:
            client.close()


# --- each setting's range, default, blanks, quotes and keys ---

# The range each numeric setting takes, as an operator may set it: the lowest and
# highest values accepted (a value past either is refused, named). 0 where it means
# "none" (no retries, no back-off, no spacing: the tests' own settings), 1 where 0 would
# stop the bot (no worker, no deferral).
RANGES = [
    ("workers", 1, 32),
    ("delivery_retention_days", 3, 3650),
    ("redeliver_every_minutes", 0, 1440),
    ("http_timeout", 0.001, 300),
    ("http_deadline", 0.001, 3600),
    ("max_retries", 0, 10),
    ("retry_backoff", 0, 60),
    ("retry_backoff_max", 0, 3600),
    ("retry_max_wait", 0, 3600),
    ("retry_sleep_max", 0, 60),
    ("lost_create_wait", 0, 60),
    ("reply_copies_check_after", 0, 86400),
    ("removed_installation_kept_seconds", 0, 3600),
    ("seconds_between_requests", 0, 10),
    ("seconds_between_writes", 0, 60),
    ("max_deferrals", 1, 100),
    ("seconds_between_unverified_logs", 1, 3600),
    ("port", 1, 65535),
]


@pytest.mark.parametrize(("field", "lowest", "highest"), RANGES, ids=[r[0] for r in RANGES])
def test_a_numeric_setting_takes_its_whole_range_and_nothing_past_it(field, lowest, highest):
    from bot.settings import env_name

    step = 1 if isinstance(lowest, int) and isinstance(highest, int) else lowest
    for value in (lowest, highest):
        assert getattr(load(**{field: value}), field) == value
    for value in (lowest - step, highest + 1):
        assert errors(**{field: value}).startswith(f"{env_name(field)}: ")


# how the GitHub client names a repository (GitHubClient `address_repos_by`): by
# its webhook's `repository.id` unless the operator says "name" (writes by id refused)
def test_repositories_are_addressed_by_id_unless_set_to_name():
    assert load().address_repos_by == "id"
    assert load(address_repos_by="name").address_repos_by == "name"
    text = errors(address_repos_by="full_name")
    assert text == "REVIEW_NOTES_ADDRESS_REPOS_BY: Input should be 'id' or 'name'"


def test_files_recheck_delays_take_0_to_3600_seconds():
    assert load(files_recheck_delays="0,3600").files_recheck_delays == (0.0, 3600.0)
    for bad in ("-1", "3601"):
        assert "REVIEW_NOTES_FILES_RECHECK_DELAYS" in errors(files_recheck_delays=bad)


def test_the_docs_defaults_are_the_settings_defaults():
    # docs/operating.md's Settings table gives each default; config/bot.toml sets some of
    # them as data: the code's default, the file's and the docs' must say one thing.
    import tomllib

    from bot.settings import DEFAULT_BOT_TOML, Settings, env_name

    table = doc("operating.md").split("\n## Settings\n", 1)[1]
    # the cell's first code span (`127.0.0.1` (image: `0.0.0.0`))
    said = dict(re.findall(r"^\| `([A-Z0-9_]+)` \| `([^`]+)`[^|]*\|", table, re.M))
    in_toml = tomllib.loads(DEFAULT_BOT_TOML.read_text("utf-8"))
    checked = 0
    for name, field in Settings.model_fields.items():
        written = said.get(env_name(name))
        default = field.default
        if written is None or default is None:
            continue
        assert written == _as_written(default), name
        as_read = type(default)(in_toml[name]) if name in in_toml else default
        assert as_read == default, name
        checked += 1
    # every default the code has, the paths and lists too (REVIEW_NOTES_DB_PATH,
    # _REPOS, _FILES_RECHECK_DELAYS, the library's files), which the check passed over
    assert checked == sum(f.default is not None for f in Settings.model_fields.values())


def _as_written(default: object) -> str:
    """A setting's default as the docs' table writes it (a path of the checkout from its
    root, a list comma separated)."""
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, float):
        return f"{default:g}"
    if isinstance(default, tuple):
        return ",".join(_as_written(item) for item in default)
    if isinstance(default, Path) and default.is_absolute():
        return str(default.relative_to(ROOT))
    return str(default)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:8000"),  # every IPv4 address: this machine's loopback
        ("::", "http://[::1]:8000"),  # every IPv6 address
        ("[::]", "http://[::1]:8000"),
        ("::1", "http://[::1]:8000"),  # an IPv6 address goes in brackets
        ("fe80::1", "http://[fe80::1]:8000"),
        ("[::1]", "http://[::1]:8000"),  # once
        ("10.0.0.5", "http://10.0.0.5:8000"),  # one address: that one
        ("localhost", "http://localhost:8000"),
        (" 0.0.0.0 ", "http://127.0.0.1:8000"),
    ],
)
def test_the_local_url_is_where_a_client_on_this_machine_reaches_the_server(host, url):
    assert load(host=host).local_url() == url


def test_a_host_is_kept_as_given_and_a_blank_one_is_the_default():
    assert load(host="10.0.0.5").host == "10.0.0.5"
    assert load(host="  ").host == "127.0.0.1"


def test_a_padded_host_is_bound_as_the_address_it_holds(monkeypatch):
    # `REVIEW_NOTES_HOST=" 0.0.0.0 "`: the start's banner (local_url) named 127.0.0.1, and
    # the server bound the host as written: "cannot listen on  0.0.0.0 :8000: Name or
    # service not known"
    from contextlib import closing

    from bot.server import _listening_socket

    monkeypatch.setenv("REVIEW_NOTES_HOST", " 127.0.0.1\n")
    settings = load()
    assert settings.host == "127.0.0.1"
    assert load(host="\t::1 ").host == "::1"  # `serve --host`
    with closing(_listening_socket(settings.host, 0)) as sock:
        assert sock.getsockname()[0] == "127.0.0.1"


# Every setting but a secret, as given and as read: blanks around it (a template's, a
# quoted value's, a mounted file's line end) are no part of it. Each with the other
# settings it needs to be read.
_PADDED = [
    ("github_app_id", "123456", "123456", {"github_private_key": PEM, "dry_run": True}),
    (
        "github_private_key_path",
        "{tmp}/app.pem",
        Path("{tmp}/app.pem"),
        {"github_app_id": "1", "dry_run": True},
    ),
    ("github_api_url", "https://ghe.example.org/api/v3", "https://ghe.example.org/api/v3", {}),
    ("repos", "acme/one", ("acme/one",), {}),
    ("public_url", "https://notes.example.org", "https://notes.example.org", {}),
    ("opt_out_label", "skip", "skip", {}),
    ("command", "/rn", "/rn", {}),
    ("note_links", "github", "github", {"notes_github_repo": "acme/notes"}),
    ("notes_github_repo", "acme/notes", "acme/notes", {"note_links": "github"}),
    ("notes_github_branch", "dev", "dev", {}),
    ("notes_github_dir", "docs/notes", "docs/notes", {}),
    ("notes_dir", "my/notes", Path("my/notes"), {}),
    ("topics_file", "my/topics.toml", Path("my/topics.toml"), {}),
    ("matching_file", "my/matching.toml", Path("my/matching.toml"), {}),
    ("db_path", "var/x.sqlite3", Path("var/x.sqlite3"), {}),
    ("bot_login", "review-notes[bot]", "review-notes[bot]", {}),
    ("host", "0.0.0.0", "0.0.0.0", {}),
    ("log_level", "debug", "DEBUG", {}),
    ("address_repos_by", "name", "name", {}),
    ("comment_on_drafts", "true", True, {}),
    ("dry_run", "true", True, {}),
    ("redeliver_on_start", "false", False, {}),
    ("files_recheck_delays", "5", (5.0,), {}),
]


# GitHub's settings are never read from bot.toml: that pairing does not exist
_PADDED_FROM = [
    pytest.param(*padded, source, id=f"{padded[0]}-{source}")
    for source in ("environment", ".env", "bot.toml")
    for padded in _PADDED
    if not (source == "bot.toml" and env_name(padded[0]).startswith("GITHUB_"))
]


@pytest.mark.parametrize(("field", "given", "read", "needs", "source"), _PADDED_FROM)
def test_blanks_around_a_setting_that_is_no_secret_are_dropped(
    tmp_path, monkeypatch, field, given, read, needs, source
):
    # `REVIEW_NOTES_OPT_OUT_LABEL=" skip "` matched no label, a padded
    # `REVIEW_NOTES_DB_PATH` named a file with spaces, `REVIEW_NOTES_REPOS="acme/one\n"`
    # (a mounted file's line end) was an allow-list matching no repository, a padded
    # `REVIEW_NOTES_PUBLIC_URL` was "must be an http(s) URL", a padded `true` no yes/no
    name = env_name(field)
    key = tmp_path / "app.pem"
    key.write_text(PEM, "utf-8")
    given = given.format(tmp=tmp_path)
    read = Path(str(read).format(tmp=tmp_path)) if isinstance(read, Path) else read
    padded = f" \t{given} \n"
    env, toml = tmp_path / ".env", tmp_path / "bot.toml"
    if source == "environment":
        monkeypatch.setenv(name, padded)
    elif source == ".env":  # in double quotes: python-dotenv drops blanks around the rest
        env.write_text(f"{name}={json.dumps(padded)}\n", "utf-8")
    else:
        listed = field in ("repos", "files_recheck_delays")
        value = json.dumps([padded] if listed else padded)
        toml.write_text(f"{field} = {value}\n", "utf-8")
    s = load_settings(env_file=env, toml_file=toml, **needs)
    assert getattr(s, field) == read


def test_a_line_end_after_a_repository_or_the_command_word_is_no_part_of_it():
    # `REVIEW_NOTES_REPOS=acme/one\n` (a value mounted from a file) passed the allow-list's
    # check ('$' matches before a line end) and matched no repository: the bot answered
    # nothing and said why nowhere; `/rn\n` likewise was a command word no comment starts
    s = load(repos="acme/one\n", command="/rn\n")
    assert s.allows("acme/one") and s.command == "/rn"


@pytest.mark.parametrize("blank", ["\t", "\n", "\r\n"])
def test_a_list_entry_of_blanks_is_none_whatever_the_blank(monkeypatch, blank):
    # a list's entries were cut at spaces alone, so an entry of a tab or
    # a line end (`acme/one,` and a mounted file's line end) was refused as a repository
    # named "" (": not owner/name"), and a blank list of delays was "Input should be a
    # valid number" where "  " meant none; JSON written over lines kept its quotes
    monkeypatch.setenv("REVIEW_NOTES_REPOS", f"acme/one,{blank}")
    monkeypatch.setenv("REVIEW_NOTES_FILES_RECHECK_DELAYS", f"5,{blank},30")
    s = load()
    assert (s.repos, s.files_recheck_delays) == (("acme/one",), (5.0, 30.0))
    monkeypatch.setenv("REVIEW_NOTES_FILES_RECHECK_DELAYS", blank)
    assert load().files_recheck_delays == ()  # empty: never look again
    monkeypatch.setenv("REVIEW_NOTES_REPOS", f'[{blank}"acme/one",{blank}"acme/two"{blank}]')
    assert load().repos == ("acme/one", "acme/two")
    monkeypatch.setenv("REVIEW_NOTES_REPOS", blank)
    assert "REVIEW_NOTES_REPOS: the allow-list is empty" in errors()


@pytest.mark.parametrize("blank", ["", " ", "\t", "\n"])
def test_a_blank_entry_of_a_bot_toml_list_is_none_as_in_the_environment(tmp_path, blank):
    # `repos = ["acme/one", " "]` was refused as a repository named ""
    # (": not owner/name") and `files_recheck_delays = ["\t"]` as "a valid number", where
    # the same blank entries from the environment are none (`_split_list`)
    toml = tmp_path / "bot.toml"
    entry = json.dumps(blank)
    toml.write_text(f'repos = ["acme/one", {entry}]\nfiles_recheck_delays = [5, {entry}]\n')
    s = load_settings(env_file=None, toml_file=toml)
    assert (s.repos, s.files_recheck_delays) == (("acme/one",), (5.0,))
    toml.write_text(f"files_recheck_delays = [{entry}]\n")
    assert load_settings(env_file=None, toml_file=toml).files_recheck_delays == ()  # never
    toml.write_text(f"repos = [{entry}]\n")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=None, toml_file=toml)
    assert (
        str(exc.value) == f"{toml}:1: repos: the allow-list is empty: the bot would never comment"
    )


_WEBHOOK_SECRETS = ["GITHUB_WEBHOOK_SECRET", "GITHUB_PREVIOUS_WEBHOOK_SECRET"]


@pytest.mark.parametrize("source", ["environment", ".env"])
@pytest.mark.parametrize("padded", [" s3cret", "s3cret\t", " s3cret \n"])
@pytest.mark.parametrize("name", _WEBHOOK_SECRETS)
def test_blanks_around_a_webhook_secret_are_refused_not_shown(
    tmp_path, monkeypatch, name, padded, source
):
    # `GITHUB_WEBHOOK_SECRET="s3cret "` (a template's or a quoted value's
    # blank) was kept: the start was clean, then every delivery failed its signature
    # check, a 401 logged once a minute. Blanks may be a secret's own, so they are not
    # dropped either: the start says so, without the value.
    env = tmp_path / ".env"
    if source == "environment":
        monkeypatch.setenv(name, padded)
    else:
        env.write_text(f"{name}={json.dumps(padded)}\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=None)
    where = name if source == "environment" else f"{env}:1: {name}"
    assert str(exc.value).startswith(f"{where}: starts or ends with a space or a tab")
    assert "s3cret" not in str(exc.value)


@pytest.mark.parametrize(
    "written", ["s3cret-of-the-hook ", " s3cret-of-the-hook", "s3cret-of-the-hook\t\r"]
)
@pytest.mark.parametrize("name", _WEBHOOK_SECRETS)
def test_blanks_around_an_unquoted_webhook_secret_of_dotenv_are_refused(
    tmp_path, monkeypatch, name, written
):
    # python-dotenv drops the blanks around an unquoted value, where `docker run
    # --env-file` keeps them (and the start refused them there, naming no file): the same
    # .env was two secrets, one of them failing every delivery's signature. Read as docker
    # reads it, the start names its line.
    env = tmp_path / ".env"
    env.write_text(f"TZ=UTC\n{name}={written}\n# the end\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=None)
    said = str(exc.value)
    assert said.startswith(f"{env}:2: {name}: starts or ends with a space or a tab"), said
    assert "`docker run --env-file` keeps them" in said and "s3cret" not in said
    monkeypatch.setenv(name, HOOK)  # the environment's is read: .env's is no matter
    assert load_settings(env_file=env, toml_file=None).webhook_secret() in (
        HOOK,
        DEV_WEBHOOK_SECRET,
    )


@pytest.mark.parametrize("source", ["environment", ".env"])
@pytest.mark.parametrize("name", _WEBHOOK_SECRETS)
def test_an_inline_comment_after_a_webhook_secret_is_refused_not_shown(
    tmp_path, monkeypatch, name, source
):
    # `docker run --env-file` keeps `s3cret # the App's` whole, where python-dotenv (and
    # compose) drop the comment: the image's start was clean, then every delivery failed
    # its signature, while a checkout's server, on the same .env, verified them
    env = tmp_path / ".env"
    written = "s3cret-of-the-hook # the App's"
    if source == "environment":
        monkeypatch.setenv(name, written)
    else:
        env.write_text(f"TZ=UTC\n{name}={written}\n", "utf-8")
    with pytest.raises(SettingsError) as exc:
        load_settings(env_file=env, toml_file=None)
    said = str(exc.value)
    where = name if source == "environment" else f"{env}:2: {name}"
    assert said.startswith(f"{where}: holds ' #', an inline comment's start"), said
    assert "s3cret" not in said and "App's" not in said
    env.write_text(f"TZ=UTC\n# the App's\n{name}=s3cret-of-the-hook#1\n", "utf-8")
    monkeypatch.delenv(name, raising=False)  # a comment's line, a '#' in it: the secret's
    assert load_settings(env_file=env, toml_file=None).secret_values()[-1] == (
        "s3cret-of-the-hook#1"
    )


def test_secret_values_are_every_secret_the_logs_must_hide():
    live = {"github_webhook_secret": HOOK, "public_url": "https://x.org"}
    assert load().secret_values() == ["review-notes-dev-secret"]
    assert load(github_token="ghp_abc", **live).secret_values() == [HOOK, "ghp_abc"]
    key = load(github_app_id="1", github_private_key=PEM, **live)
    assert key.secret_values() == [HOOK, PEM]


# the webhook secret before a rotation, kept so the notes comments signed with it verify
def test_the_previous_webhook_secret_is_read_as_meant_and_never_shown(monkeypatch):
    live = {"github_token": "ghp_" + "x" * 36, "github_webhook_secret": HOOK}
    live["public_url"] = "https://x.org"
    # (a file's line end after it)
    monkeypatch.setenv("GITHUB_PREVIOUS_WEBHOOK_SECRET", "old secret of the hook\r\n")
    s = load(**live)
    assert s.previous_webhook_secrets() == ("old secret of the hook",)
    assert s.secret_values() == [HOOK, "old secret of the hook", "ghp_" + "x" * 36]
    assert "old secret" not in repr(s)
    for blank in ("", "  "):  # emptied once the rotation is over: none kept
        monkeypatch.setenv("GITHUB_PREVIOUS_WEBHOOK_SECRET", blank)
        assert load(**live).previous_webhook_secrets() == ()
    monkeypatch.setenv("GITHUB_PREVIOUS_WEBHOOK_SECRET", HOOK)  # the secret now: nothing more
    assert load(**live).previous_webhook_secrets() == ()
    monkeypatch.setenv("GITHUB_PREVIOUS_WEBHOOK_SECRET", DEV_WEBHOOK_SECRET)
    text = errors(**live)
    assert "GITHUB_PREVIOUS_WEBHOOK_SECRET: is the development secret" in text
    assert load().previous_webhook_secrets() == ()  # a dry run's: its secret now


def test_a_token_beside_an_app_id_alone_is_named_as_a_conflict():
    text = errors(github_token="ghp_abc", github_app_id="1")
    assert "GITHUB_TOKEN: set either a token or the App credentials, not both" in text


def test_blank_and_padded_values_are_read_as_meant():
    live = {"github_webhook_secret": HOOK, "public_url": "https://x.org"}
    assert "REVIEW_NOTES_DB_PATH: is empty" in errors(db_path="   ")
    app = load(github_app_id=" 123 ", github_private_key=PEM, **live)
    assert app.github_app_id == "123"
    # a key on one line with escapes and an `echo`'s line end: the key, no blank line
    one_line = PEM.replace("\n", "\\n") + "\n"
    assert load(github_app_id="1", github_private_key=one_line, **live).private_key_pem() == PEM


@pytest.mark.parametrize("value", ['""', "''", ' "no-review-notes" '])
def test_a_value_wrapped_in_quotes_is_refused_even_empty_or_padded(value):
    assert "is wrapped in quotes" in errors(opt_out_label=value)


def test_a_private_key_is_told_from_other_pem_text_and_may_be_padded():
    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    cert = PEM.replace("RSA PRIVATE KEY", "CERTIFICATE")
    assert "GITHUB_PRIVATE_KEY: not a PEM private key" in errors(github_private_key=cert, **live)
    assert load(github_private_key=f"  \n{PEM}", **live).private_key_pem() == f"  \n{PEM}"


def test_the_allow_list_is_read_without_case():
    s = load(repos="vllm-project/vllm")
    assert s.allows("VLLM-Project/vLLM") and not s.allows("vllm-project/other")


@pytest.mark.parametrize("by_path", [True, False])
def test_a_key_saved_with_a_byte_order_mark_is_the_key(tmp_path, monkeypatch, app_key, by_path):
    # Windows' Notepad saved UTF-8 with a byte order mark by default: app.pem opened and
    # saved there, or given as "$(cat app.pem)", was refused as "not a PEM private key",
    # though it reads as one.
    from bot.server import live_github

    live = {"github_app_id": "1", "github_webhook_secret": HOOK, "public_url": "https://x.org"}
    marked = "\ufeff" + app_key.private_pem
    if by_path:
        (tmp_path / "app.pem").write_text(marked, "utf-8")
        s = load(github_private_key_path=str(tmp_path / "app.pem"), **live)
    else:
        monkeypatch.setenv("GITHUB_PRIVATE_KEY", marked)
        s = load(**live)
    assert s.private_key_pem() == app_key.private_pem
    live_github(s).close()  # a usable RSA key


@pytest.mark.parametrize(
    "url",
    [
        "https://notes.example.org/webhook",
        "https://notes.example.org/webhook/",
        "https://example.org/review-notes/webhook",
    ],
)
def test_the_app_s_webhook_url_given_as_the_public_url_is_refused_naming_the_fix(url):
    # The two addresses the operator has at hand: the App's webhook URL pasted as
    # REVIEW_NOTES_PUBLIC_URL made every note link of every comment
    # https://notes.example.org/webhook/notes/<id>, a 404.
    text = errors(public_url=url)
    assert "REVIEW_NOTES_PUBLIC_URL: ends in /webhook, the App's webhook URL" in text, text
    assert "the same without /webhook" in text
    for fine in ("https://notes.example.org", "https://example.org/webhooks-and-notes"):
        assert load(public_url=fine).public_url == fine


# kills: bot/settings.py:Settings._unescape_key a value that is no text (a number in
#   config/bot.toml) taken for no key at all, not refused
def test_a_private_key_that_is_no_text_is_refused_naming_it():
    assert "GITHUB_PRIVATE_KEY: Input should be a valid string" in errors(
        github_app_id="1", github_private_key=123
    )


# --- config/bot.toml as an editor saves it, or no settings file at all ----------------

SHIPPED_TOML = ROOT / "config" / "bot.toml"


@pytest.mark.parametrize("saved", ["bom", "bom-crlf", "cr"])
def test_bot_toml_saved_with_a_bom_or_other_line_ends_loads_as_written(tmp_path, saved):
    """Defect: config/bot.toml saved by Notepad ("UTF-8 with BOM") or with CR line ends
    was 'malformed TOML: Invalid statement' and the server refused to start; the notes
    and the other config files read both (bot/config_files.py read_config)."""
    text = SHIPPED_TOML.read_text("utf-8").replace("workers = 2", "workers = 5")
    edited = {
        "bom": "\ufeff" + text,
        "bom-crlf": "\ufeff" + text.replace("\n", "\r\n"),
        "cr": text.replace("\n", "\r"),
    }[saved]
    plain, toml = tmp_path / "plain.toml", tmp_path / "bot.toml"
    plain.write_text(text, "utf-8")
    toml.write_bytes(edited.encode())
    read = load_settings(env_file=None, toml_file=toml)
    expected = load_settings(env_file=None, toml_file=plain).model_dump()
    assert read.workers == 5 and read.model_dump() == expected


@pytest.mark.parametrize("line_end", ["\r", "\r\n"])
def test_an_unknown_key_in_a_bot_toml_saved_with_a_bom_is_named_on_its_line(tmp_path, line_end):
    # the key's line is found in the text as read: the mark is not part of the first
    # key, and a CR ends a line as LF does
    toml = tmp_path / "bot.toml"
    lines = ["comment_on_draft = true", "# the bot's defaults", "workers = 2", "repo = []"]
    toml.write_bytes(("\ufeff" + line_end.join(lines) + line_end).encode())
    with pytest.raises(SettingsError) as err:
        load_settings(env_file=None, toml_file=toml)
    assert str(err.value).split("\n") == [
        f"{toml}:1: comment_on_draft: unknown setting; did you mean 'comment_on_drafts'?",
        f"{toml}:4: repo: unknown setting; did you mean 'repos'?",
    ]


def test_bot_toml_in_utf16_is_named_as_such(tmp_path):
    # Notepad's "Unicode": said with its fix, as for a note (was 'not UTF-8: 'utf-8'
    # codec can't decode byte 0xff in position 0: invalid start byte')
    toml = tmp_path / "bot.toml"
    toml.write_bytes("workers = 3\n".encode("utf-16"))
    with pytest.raises(SettingsError) as err:
        load_settings(env_file=None, toml_file=toml)
    assert str(err.value) == (
        f"{toml}:1: file: not UTF-8: invalid start byte; it is UTF-16 (Notepad's 'Unicode'):"
        " save the file as UTF-8"
    )


# kills: bot/settings.py:load_settings no settings file (toml_file=None) asked whether it exists
# kills: bot/settings.py:_toml_key_lines no settings file giving None, not "no keys"
def test_an_unknown_variable_is_named_without_a_settings_file(tmp_path):
    env = tmp_path / ".env"
    env.write_text("REVIEW_NOTES_WORKERZ=2\n", "utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(env_file=env, toml_file=None)
    assert str(err.value) == (
        f"{env}:1: REVIEW_NOTES_WORKERZ: unknown setting; did you mean REVIEW_NOTES_WORKERS?"
    )


# kills: bot/settings.py:_env_key_lines no .env giving None, not "no names"
# kills: bot/settings.py:_describe an unknown name given by the caller taken for one of .env
def test_an_unknown_setting_given_by_the_caller_is_named_alone(tmp_path):
    env = tmp_path / ".env"
    env.write_text("REVIEW_NOTES_WORKERS=3\n", "utf-8")
    for env_file in (None, env):
        with pytest.raises(SettingsError) as err:
            load_settings(env_file=env_file, toml_file=None, workerz=2)
        assert str(err.value) == "workerz: unknown setting"


# kills: bot/settings.py:_toml_key_lines a settings file it cannot read giving None, not "no keys"
def test_a_directory_where_bot_toml_goes_is_no_settings_and_no_crash(tmp_path):
    # `docker run -v` of a host file that is not there makes a directory in its place
    env, toml = tmp_path / ".env", tmp_path / "bot.toml"
    toml.mkdir()
    env.write_text("REVIEW_NOTES_WORKERS=3\n", "utf-8")
    assert load_settings(env_file=env, toml_file=toml).workers == 3
    env.write_text("REVIEW_NOTES_WORKERZ=2\n", "utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(env_file=env, toml_file=toml)
    assert str(err.value) == (
        f"{env}:1: REVIEW_NOTES_WORKERZ: unknown setting; did you mean REVIEW_NOTES_WORKERS?"
    )


# --- when workers count as failing, and how often an idle one looks: settings ---------


def test_how_long_workers_may_fail_before_healthz_does_is_a_setting():
    # /healthz said ok while the workers could not claim (a full disk)
    assert load().workers_stuck_seconds == 60.0  # config/bot.toml
    assert load(workers_stuck_seconds=0).workers_stuck_seconds == 0.0
    for bad in (-1, 86401):
        assert "REVIEW_NOTES_WORKERS_STUCK_SECONDS" in errors(workers_stuck_seconds=bad)


def test_how_often_an_idle_worker_looks_at_the_queue_is_a_setting():
    # the fallback for writes of another process, which wake no worker: not every second
    assert load().workers_poll_seconds == 5.0  # config/bot.toml
    assert load(workers_poll_seconds=0.5).workers_poll_seconds == 0.5
    for bad in (0, 301):
        assert "REVIEW_NOTES_WORKERS_POLL_SECONDS" in errors(workers_poll_seconds=bad)


# --- a careless operator's values (security) ------------------------------------------


@pytest.mark.parametrize(
    "pasted",
    [
        PEM,  # the key in both variables
        "0123456789abcdef0123456789abcdef01234567",  # the manifest's hex webhook_secret
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "my webhook secret",
    ],
)
def test_a_credential_put_in_github_app_id_is_refused_and_not_shown(pasted):
    # GITHUB_APP_ID took any text and sent it to GitHub as the JWT's issuer: a key or
    # secret put there by mistake left the server for GITHUB_API_URL, in a header
    text = errors(github_app_id=pasted, github_private_key=PEM)
    assert "GITHUB_APP_ID: is neither the App's ID (a number) nor its client ID" in text
    assert not any(part in text for part in re.findall(r"[A-Za-z0-9+=_]{8,}", pasted))


@pytest.mark.parametrize("app_id", ["123456", "Iv1.8a61f9b3a7aba766", "Iv23liAbCdEf0123456789"])
def test_an_app_id_or_a_client_id_is_taken(app_id):
    live = {"github_webhook_secret": HOOK, "public_url": "https://x.org"}
    assert load(github_app_id=app_id, github_private_key=PEM, **live).github_app_id == app_id


@pytest.mark.parametrize("creds", [{"github_token": "ghp_" + "x" * 36}, {"github_app_id": "1"}])
def test_the_development_secret_is_refused_when_posting_to_github(creds):
    # the dry run's banner prints it and the README names it: an operator going live
    # with it copied into GITHUB_WEBHOOK_SECRET let anyone sign deliveries (commands,
    # writes), where an empty secret was already refused
    if "github_app_id" in creds:
        creds = {**creds, "github_private_key": PEM}
    live = {"public_url": "https://x.org", **creds}
    text = errors(github_webhook_secret="review-notes-dev-secret\n", **live)
    assert "GITHUB_WEBHOOK_SECRET: is the development secret" in text


def test_a_public_url_with_a_password_is_refused_and_not_shown():
    # every note link of every comment is built on it: a proxy's basic auth written into
    # it was published on GitHub with each comment
    live = {"github_token": "ghp_" + "x" * 36, "github_webhook_secret": HOOK}
    text = errors(public_url="https://reviewer:hunter2pw@notes.example.org/", **live)
    assert "REVIEW_NOTES_PUBLIC_URL: holds a user or password" in text
    assert "hunter2pw" not in text
    # kills: bot/settings.py:Settings._check_url an '@' anywhere (a path's) taken for a password
    assert load(public_url="https://x.org/@notes", **live).public_url == "https://x.org/@notes"
    # GITHUB_API_URL may still carry one (a proxy in front of GitHub Enterprise)
    url = "https://bot:pw@ghe.example.com/api/v3"
    assert load(github_api_url=url, public_url="https://x.org", **live).github_api_url == url


# REVIEW_NOTES_LOG_LEVEL=debug was refused ("Input should be 'DEBUG', 'INFO', ..."),
# where Python's logging and uvicorn's --log-level take the name in any case
@pytest.mark.parametrize("given", ["debug", "Warning", "ERROR"])
def test_the_log_level_is_taken_in_any_case(monkeypatch, given):
    monkeypatch.setenv("REVIEW_NOTES_LOG_LEVEL", given)
    assert load().log_level == given.upper()


def test_a_log_level_that_is_none_is_still_refused(monkeypatch):
    monkeypatch.setenv("REVIEW_NOTES_LOG_LEVEL", "verbose")
    assert "REVIEW_NOTES_LOG_LEVEL" in errors()


# kills: bot/github_sessions.py:_dsa_key_class DSA's key class read at import: cryptography 51
#   deprecates DSA and warns at the name's reading, so every command that calls GitHub put a
#   CryptographyDeprecationWarning on stderr (a fresh install got 51; three tests that read
#   stderr whole failed)
def test_the_github_client_is_imported_with_no_warning_on_stderr(tmp_path):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-c", "import bot.github_client"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert (r.returncode, r.stderr) == (0, ""), r.stderr


# kills: bot/github_sessions.py:key_problem a DSA key, its class read lazily, said "not a usable
#   RSA PEM key" rather than its kind
def test_a_dsa_key_is_named_as_one():
    import warnings

    from cryptography.hazmat.primitives.asymmetric import dsa
    from cryptography.utils import CryptographyDeprecationWarning

    with warnings.catch_warnings():  # deprecated in cryptography 51, as the bot's reading is
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        pem = _pem(dsa.generate_private_key(key_size=1024))
    from bot.github_sessions import key_problem

    assert key_problem(pem) == (
        "GitHub App private key is a DSA key; GitHub App keys are RSA: download the App's"
        " private key from its settings page"
    )


# an operator's walkthrough: REVIEW_NOTES_HTTP_TIMEOUT=nan was refused as "Input
# should be less than or equal to 300", which NaN is not more than either, and `inf` the
# same: the message sent the operator looking for a value too large. A number that is not
# finite is named as such, for every float setting (`files_recheck_delays` says its range).
FLOATS = [n for n, f in Settings.model_fields.items() if f.annotation is float]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
@pytest.mark.parametrize("field", FLOATS)
def test_a_number_that_is_not_finite_is_named_as_such(monkeypatch, field, value):
    from bot.settings import env_name

    monkeypatch.setenv(env_name(field), value)
    assert errors() == f"{env_name(field)}: Input should be a finite number"


def test_every_float_setting_is_checked_for_a_finite_value():
    assert len(FLOATS) >= 12  # the float settings were found


# REVIEW_NOTES_BOT_LOGIN took any text ("two words", "@review-notes[bot]", a URL):
# the bot then knew none of its own comments by it (it edits only comments of this
# login). A GitHub login is letters, digits and hyphens ('_' in a managed user's), not
# starting with a hyphen; an App's bot account adds "[bot]". Refused, not shown (a token
# pasted there is not echoed).
@pytest.mark.parametrize(
    "login",
    [
        *("two words", "@review-notes[bot]", "https://github.com/apps/review-notes", "-x"),
        *("my-app[bot", "my-app [bot]", "a" * 101, "ghp_" + "A" * 36 + "/"),
    ],
)
def test_a_bot_login_no_github_account_can_have_is_refused_and_not_shown(login):
    text = errors(bot_login=login)
    assert text.startswith("REVIEW_NOTES_BOT_LOGIN: ") and login not in text


@pytest.mark.parametrize(
    "login", ["review-notes[bot]", "octo-dev", "Octo-Dev", "a", "a" * 39, "x1-y2[bot]", "u_acme"]
)
def test_a_bot_login_github_can_have_is_taken(login):
    assert load(bot_login=login).bot_login == login


@pytest.mark.parametrize(
    ("branch", "why"),
    [
        ("a b", "a space"),
        ("ma\tin", "a control character"),  # (blanks around are dropped)
        ("release..v1", "'..'"),
        ("v1~1", "'~'"),
        ("main^", "'^'"),
        ("origin:main", "':'"),
        ("feat?", "'?'"),
        ("feat*", "'*'"),
        ("feat[1]", "'['"),
        ("feat\\x", "'\\'"),
        ("main@{1}", "'@{'"),
        ("notes.lock", "'.lock'"),
        ("notes/", "'/'"),
        ("/notes", "'/'"),
        ("a//b", "'//'"),
        ("a/.hidden", "'.'"),
        ("notes.", "'.'"),
        ("@", "'@'"),
        ("-notes", "'-'"),
    ],
)
def test_a_notes_branch_git_refuses_stops_the_start(branch, why):
    # REVIEW_NOTES_NOTES_GITHUB_BRANCH="a b" was taken: every
    # `github` note link led to a branch no repository can have (git check-ref-format).
    text = errors(notes_github_branch=branch)
    assert text.startswith(
        f"REVIEW_NOTES_NOTES_GITHUB_BRANCH: {branch!r} is no branch name git allows"
    ), text
    assert why in text, text


@pytest.mark.parametrize("branch", ["main", "release/v0.6.1", "feat/a-b_c", "user@x", "v1.2"])
def test_a_notes_branch_git_allows_is_taken(branch):
    assert load(notes_github_branch=branch).notes_github_branch == branch


def test_the_start_stops_on_a_notes_branch_git_refuses(tmp_path):
    r = run_cli(tmp_path, "serve", REVIEW_NOTES_NOTES_GITHUB_BRANCH="a b")
    clear_error(r, "REVIEW_NOTES_NOTES_GITHUB_BRANCH", "'a b' is no branch name git allows")


@pytest.mark.parametrize("directory", ["../notes", "seeds/../notes", "./seeds/notes", "a//b"])
def test_a_notes_github_dir_a_link_cannot_hold_stops_the_start(directory):
    # a `..` part (or `.`, or an empty one) is read by the browser before GitHub sees the
    # link: blob/main/../notes/x.md is blob/notes/x.md, a branch named notes
    text = errors(notes_github_dir=directory)
    assert text.startswith(f"REVIEW_NOTES_NOTES_GITHUB_DIR: {directory!r} ")
    assert "from the repository's root" in text, text


@pytest.mark.parametrize("directory", ["seeds/notes", "/seeds/notes", "notes/", "a.b/c..d"])
def test_a_notes_github_dir_from_the_root_is_taken(directory):
    assert load(notes_github_dir=directory).notes_github_dir == directory


def _port_read(tmp_path: Path, **hook: str) -> str:
    """The port a process started in `tmp_path` reads, with `hook` in its environment."""
    import subprocess
    import sys

    from tests.webhook_kit import base_env

    r = subprocess.run(
        [sys.executable, "-c", "from bot.settings import load_settings as s; print(s().port)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=base_env(tmp_path, PYTHONPATH=str(ROOT), **hook),
        timeout=60,
    )
    assert r.returncode == 0, r.stderr[-800:]
    return r.stdout.strip()


# kills: bot/settings.py:ENV_FILE the tests' hook took any path, a second, undocumented way to
#   make a server read another .env than its working directory's
def test_the_tests_hook_reads_no_env_file_and_names_none(tmp_path):
    (tmp_path / ".env").write_text("REVIEW_NOTES_PORT=8123\n")
    other = tmp_path / "other.env"
    other.write_text("REVIEW_NOTES_PORT=8124\n")
    assert _port_read(tmp_path) == "8123"  # the working directory's
    assert _port_read(tmp_path, _REVIEW_NOTES_TEST_NO_DOTENV=str(other)) == "8000"  # none
    (tmp_path / ".env").unlink()
    assert _port_read(tmp_path, _REVIEW_NOTES_TEST_ENV_FILE=str(other)) == "8000"  # no file named
