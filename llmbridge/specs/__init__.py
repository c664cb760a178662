"""What a ``ToolSpec`` is made of: building one, its JSON schema, validating a call's arguments.

Beside the request models (``llmbridge.request``, whose ``ToolSpec`` classmethods call these
through function-local imports, so nothing here loads until a spec is built or used); below
the tools package (registry, loop, MCP), which uses them. Nothing here imports the request
models or the tools package back. Importing this package loads nothing.

=========================  ==========================================================
``builders.py``            ``from_function`` / ``from_model`` / ``from_json_schema`` /
                           ``from_mcp`` → a spec's parts; ``validate_arguments``
``schema_from_function``   a function's signature and docstring → a schema and a model
``schema_check.py``        a JSON schema every provider accepts (``ToolSchemaError``)
``schema_to_model.py``     a JSON schema → the pydantic model that validates arguments
``argument_errors.py``     validation errors → ``ToolArgumentsError`` fit for the model
``docstrings.py``          parameter descriptions from Google / NumPy / Sphinx docstrings
``context.py``             ``ToolContext``: the hidden first parameter
``errors.py``              ``ToolSchemaError``, ``ToolSchemaWarning``
=========================  ==========================================================
"""
