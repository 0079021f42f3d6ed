"""Written from shmlint/formats/*/__init__.py by `python -m shmlint.build_data`: do not edit (a test
compares). What a run needs of every format before it knows which it reads, so that it imports only those.

NAMES: the name rules in rank order, (kind, package, endings, beginnings, names, lower_names). SNIFFS: the
packages that tell a file by its first bytes. YAML_CLAIMS: in the order they are asked, (package, name
patterns each with its longest literal part, words, marker pattern, marker flags). WITHOUT_SIGNAL: the
packages that may read YAML without a signal word. OWNERS: workload format -> the package that spells
its fix."""

NAMES = (('yaml', 'kubernetes', ('.yaml', '.yml'), (), (), ()),
 ('yaml-template',
  'kubernetes',
  ('.yaml.template',
   '.yaml-template',
   '.yaml.tmpl',
   '.yaml.tpl',
   '.yaml.j2',
   '.yaml.jinja',
   '.yaml.jinja2',
   '.yml.template',
   '.yml-template',
   '.yml.tmpl',
   '.yml.tpl',
   '.yml.j2',
   '.yml.jinja',
   '.yml.jinja2'),
  (),
  (),
  ()),
 ('devcontainer', 'devcontainer', ('.devcontainer.json',), (), (), ('devcontainer.json',)),
 ('json', 'aws', ('.json',), (), (), ()),
 ('shell', 'commandline', ('.sh', '.bash', '.zsh', '.slurm', '.sbatch'), (), (), ()),
 ('powershell', 'commandline', ('.ps1', '.psm1', '.psd1'), (), (), ()),
 ('batch', 'commandline', ('.bat', '.cmd'), (), (), ()),
 ('makefile', 'commandline', ('.mk',), (), ('Makefile', 'makefile', 'GNUmakefile'), ()),
 ('justfile', 'commandline', ('.just',), (), ('justfile', 'Justfile', 'JUSTFILE', '.justfile'), ()),
 ('markdown', 'commandline', ('.md', '.markdown', '.mdx', '.qmd'), (), (), ()),
 ('rst', 'commandline', ('.rst',), (), (), ()),
 ('notebook', 'commandline', ('.ipynb',), (), (), ()),
 ('unit', 'units', ('.service', '.container'), (), (), ()),
 ('dockerfile',
  'dockerfile',
  ('.dockerfile',),
  ('dockerfile.',),
  ('Dockerfile', 'Containerfile', 'dockerfile', 'containerfile'),
  ()),
 ('terraform', 'terraform', ('.tf', '.tfvars'), (), (), ()),
 ('python', 'python', ('.py',), (), (), ()),
 ('gitlab-runner', 'gitlab_runner', ('.config.toml',), (), (), ('config.toml',)),
 ('jenkinsfile', 'ci', ('.jenkinsfile',), ('jenkinsfile',), (), ()))

SNIFFS = ('commandline', 'compose', 'kubernetes')

YAML_CLAIMS = (('akash', (), ('deployment',), '^deployment[ \\t]*:', 8),
 ('compose',
  (('compose.y*ml', 'compose.y'),
   ('compose.*.y*ml', 'compose.'),
   ('docker-compose*.y*ml', 'docker-compose'),
   ('*.compose.y*ml', '.compose.y')),
  ('services',),
  '^services[ \\t]*:',
  8),
 ('ci',
  (),
  ('run:', 'run ', 'run\t', 'container:', 'container ', 'container\t', 'script', 'options'),
  '^[ \\t-]*(run|script|before_script|after_script|container|options)[ \\t]*:',
  8),
 ('ray', (), ('cluster_name',), '^cluster_name[ \\t]*:', 8),
 ('aws', (), ('AWS::ECS::', 'AWS::Batch::'), None, 0),
 ('azureml', (), ('azureml',), '^\\$schema:.*azureml|azureml:', 8),
 ('ansible',
  (),
  ('shell', 'command', 'raw', '_container'),
  '^[ \\t-]*(?:[a-z_]+\\.[a-z_]+\\.)?(?:(?:docker|podman)_container[ \\t]*:|(?:shell|command|raw)[ \\t]*:[ '
  '\\t]*(?:[^\\s\\[#]|\\n[ \\t]+(?:cmd|argv)[ \\t]*:))',
  8),
 ('kubernetes', (), (), None, 0))

WITHOUT_SIGNAL = ('compose',)

OWNERS = {'akash': 'akash',
 'ansible': 'ansible',
 'aws': 'aws',
 'azureml': 'azureml',
 'ci-job': 'ci',
 'command': 'commandline',
 'compose': 'compose',
 'devcontainer': 'devcontainer',
 'dockerfile': 'dockerfile',
 'gitlab-runner': 'gitlab_runner',
 'kubernetes': 'kubernetes',
 'python': 'python',
 'ray': 'ray',
 'terraform': 'terraform',
 'quadlet': 'units'}
