import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';

// The part of `kubectl kustomize` that deploy/kubernetes/ uses, for CI: neither kubectl nor
// kustomize comes from the registries this project installs from (Debian's kubectl is 1.20,
// whose kustomize predates directories in `resources:`). It reads `resources:` (files and
// directories with a kustomization.yaml of their own), then applies `images:` and `namespace:`
// to everything gathered, as kustomize does. A field it does not apply is refused rather than
// ignored, so a kustomization that uses more than this cannot pass with a wrong rendering.

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every document of a YAML file; a syntax error or a duplicate key fails the load. */
export function yamlDocuments(path: string): unknown[] {
  // merge: docker-compose.yml shares one definition between replicas with `<<:`, which Compose
  // resolves before it validates.
  return parseAllDocuments(readFileSync(path, 'utf8'), { merge: true }).map((document) => {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`${path}: ${problems.map(String).join('\n')}`);
    return document.toJS();
  });
}

export interface Rendering {
  objects: Json[];
  /** Every manifest file read, relative to `root`. */
  files: string[];
}

const APPLIED = new Set(['apiVersion', 'kind', 'resources', 'images', 'namespace']);
const IMAGE_FIELDS = new Set(['name', 'newName', 'newTag']);

/**
 * What `kubectl kustomize <dir>` prints, as objects. `extra` adds resources to the top
 * kustomization's list (a file the example leaves commented out). Throws on a missing file, a
 * field this renderer does not apply, or two objects of one kind, namespace and name.
 */
export function kustomize(dir: string, root: string, extra: readonly string[] = []): Rendering {
  const file = join(dir, 'kustomization.yaml');
  const where = relative(root, file);
  const [spec, ...more] = yamlDocuments(file);
  if (!isRecord(spec) || more.length > 0) throw new Error(`${where}: not one mapping`);
  if (spec.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || spec.kind !== 'Kustomization') {
    throw new Error(`${where}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }
  for (const key of Object.keys(spec)) {
    if (!APPLIED.has(key)) throw new Error(`${where}: ${key} is not applied by this renderer`);
  }
  const gathered: Rendering = { objects: [], files: [] };
  for (const resource of [...strings(spec.resources, `${where} resources`), ...extra]) {
    const path = join(dir, resource);
    const inner = isDirectory(path, where)
      ? kustomize(path, root)
      : {
          objects: yamlDocuments(path).map((doc) => mapping(doc, path)),
          files: [relative(root, path)],
        };
    gathered.objects.push(...inner.objects.map((o) => structuredClone(o)));
    gathered.files.push(...inner.files);
  }
  for (const image of Array.isArray(spec.images) ? spec.images : []) {
    setImage(gathered.objects, mapping(image, `${where} images`), where);
  }
  if (spec.namespace !== undefined) {
    // Every kind in the example is namespaced; kustomize would leave a cluster-wide one alone.
    for (const object of gathered.objects) {
      mapping(object.metadata, 'metadata').namespace = String(spec.namespace);
    }
  }
  refuseDuplicates(gathered.objects, where);
  return gathered;
}

function strings(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`${what}: not a list of paths`);
  }
  return value;
}

function mapping(value: unknown, what: string): Json {
  if (!isRecord(value)) throw new Error(`${what} is not a mapping`);
  return value;
}

function isDirectory(path: string, where: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    throw new Error(`${where}: resource ${path} does not exist`);
  }
}

/** `images:` with `newName` and `newTag`, on every container of every pod template. */
function setImage(objects: readonly Json[], image: Json, where: string): void {
  for (const key of Object.keys(image)) {
    if (!IMAGE_FIELDS.has(key)) throw new Error(`${where}: images.${key} is not applied`);
  }
  for (const object of objects) {
    const pod = podSpec(object);
    for (const container of [...list(pod?.containers), ...list(pod?.initContainers)]) {
      if (!isRecord(container) || typeof container.image !== 'string') continue;
      const { name, tag } = splitImage(container.image);
      if (name !== image.name) continue;
      const newName = typeof image.newName === 'string' ? image.newName : name;
      const newTag = typeof image.newTag === 'string' ? image.newTag : tag;
      container.image = newTag === undefined ? newName : `${newName}:${newTag}`;
    }
  }
}

function podSpec(object: Json): Json | undefined {
  const spec = object.spec;
  if (!isRecord(spec)) return undefined;
  const template = spec.template;
  return isRecord(template) && isRecord(template.spec) ? template.spec : undefined;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** `registry:5000/name:tag` → name `registry:5000/name`, tag `tag` (a digest is refused). */
function splitImage(image: string): { name: string; tag: string | undefined } {
  if (image.includes('@')) throw new Error(`${image}: images by digest are not applied`);
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/')
    ? { name: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { name: image, tag: undefined };
}

function refuseDuplicates(objects: readonly Json[], where: string): void {
  const seen = new Set<string>();
  for (const object of objects) {
    const metadata = mapping(object.metadata, 'metadata');
    const id = `${String(object.kind)} ${String(metadata.namespace ?? '')}/${String(metadata.name)}`;
    if (seen.has(id)) throw new Error(`${where}: ${id} is defined twice`);
    seen.add(id);
  }
}
