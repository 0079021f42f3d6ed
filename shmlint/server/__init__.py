"""``shmlint server``: the Language Server editors start over stdio.

``positions`` converts offsets to the editor's positions, ``analysis`` checks a buffer and computes its fixes with
shmlint's own types only, ``protocol`` speaks LSP through pygls. Nothing here is imported by ``check``.
"""
