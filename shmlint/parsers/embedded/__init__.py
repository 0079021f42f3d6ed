"""Code embedded in other files: shell as masks (the file's text with everything that is not shell blanked), and
where the YAML code blocks of documentation (Markdown, MDX, Quarto, reStructuredText) are.

A mask has the file's length and keeps its line breaks, so every offset the shell tokenizer reports is an offset
into the file itself: findings and fixes need no translation. Blanking is the only change, except that
documentation placeholders (``<path to data>``) become quotes of the same length, so that they read as one word
rather than as redirections that would swallow the options after them, and placeholders for more options
(``...``, ``[OPTIONS]``) become blanks.

The mask itself is ``mask.py``; documentation is read by ``markdown.py`` (also MDX and Quarto) and ``rst.py``, whose
shell blocks, prompts and placeholders ``shell_blocks.py`` keeps; ``makefile.py`` reads recipes, ``ci_yaml.py``
GitHub Actions and GitLab CI scripts, and ``yaml_scalars.py`` any YAML string read as shell words.
``windows_scripts.py`` writes PowerShell and cmd scripts as the POSIX shell they map to, character for character
(there a character may also change: an escape character becomes a backslash, a variable a shell variable).
"""
