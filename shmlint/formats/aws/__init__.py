"""AWS ECS task definitions and Batch job definitions: JSON (AWS CLI input or output, a container definitions
list) and CloudFormation templates in JSON or YAML."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format, YamlClaim, documents_reader, documents_test
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText

#: keys that make a JSON file one shmlint reads (ECS task or Batch job definition, AWS CLI input or output,
#: CloudFormation template, a container definitions list); any other JSON file (package.json...) is left alone
_AWS_JSON_KEYS = LazyRegex(
    r'"(containerDefinitions|containerProperties|nodeProperties|eksProperties|ecsProperties|jobDefinitionName|'
    r'jobDefinitions|taskDefinition|AWSTemplateFormatVersion|Resources|linuxParameters|essential)"\s*:'
)


def is_aws_json(text: str) -> bool:
    return _AWS_JSON_KEYS.search(text) is not None


def _read_json(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    """ECS/Batch definitions and CloudFormation templates; any other JSON file is not shmlint's to read."""
    if not is_aws_json(source.text):
        return [], []
    from shmlint.extract.dispatch import UnparsableInput
    from shmlint.parsers.jsonnodes import check_json, compose_json
    from shmlint.parsers.yamlnodes import YamlError

    try:
        if not run.prefilter.passes(source.text):
            check_json(source)
            return [], []
        documents = compose_json(source)
    except YamlError as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None
    from shmlint.formats.aws.extract import extract_aws

    return extract_aws(source, documents, run.signals), []


def _json_syntax_error(source: SourceText, strict: bool) -> str | None:
    from shmlint.parsers.jsonnodes import compose_json
    from shmlint.parsers.yamlnodes import syntax_error

    return syntax_error(compose_json, source, strict)


FORMAT = Format(
    name="aws",
    label="AWS ECS/Batch (JSON, CloudFormation)",
    workload_format=WorkloadFormat.AWS,
    remedy="set linuxParameters.sharedMemorySize (MiB) on the container; Fargate takes none: run on EC2 capacity",
    fix_in_short="set linuxParameters.sharedMemorySize",
    writer="shmlint.formats.aws.edit",
    fixtures=("aws",),
    files=(
        FileNames(FileKind.JSON, rank=30, endings=(".json",), syntax_error=_json_syntax_error, content=is_aws_json),
    ),
    read=_read_json,
    # what a CloudFormation template with a container says; other YAML never imports the extractor
    yaml=YamlClaim(
        rank=40,
        detect=documents_test("shmlint.formats.aws.extract", "is_cloudformation"),
        read=documents_reader("shmlint.formats.aws.extract", "extract_aws"),
        words=("AWS::ECS::", "AWS::Batch::"),
    ),
)
