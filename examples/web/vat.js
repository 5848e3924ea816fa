// Stampede's bake export, read as docs/formats.md ("The bake export format")
// describes it: vat.json, mesh.glb (TEXCOORD_1 = the lookup), and the
// position and normal EXRs. One material draws a crowd of instances, each
// with its own clip, rate and time offset.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { EXRLoader } from 'three/addons/loaders/EXRLoader.js';

const MAX_CLIPS = 64;

async function loadJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return response.json();
}

// The layers of one texture as a float texture array. three's EXRLoader
// hands back the file's rows bottom first (WebGL's order), so row r of
// docs/formats.md's addressing (0 = the file's top row) is array row height-1-r.
async function loadLayers(base, files, layout) {
  const loader = new EXRLoader().setDataType(THREE.FloatType);
  const { width, height } = layout;
  const data = new Float32Array(width * height * 4 * files.length);
  for (let layer = 0; layer < files.length; layer++) {
    const exr = await loader.loadAsync(base + files[layer]);
    if (exr.image.width !== width || exr.image.height !== height) {
      throw new Error(`${files[layer]}: ${exr.image.width}x${exr.image.height}, vat.json says ${width}x${height}`);
    }
    data.set(exr.image.data, layer * width * height * 4);
  }
  const texture = new THREE.DataArrayTexture(data, width, height, files.length);
  texture.format = THREE.RGBAFormat;
  texture.type = THREE.FloatType;
  texture.minFilter = THREE.NearestFilter;
  texture.magFilter = THREE.NearestFilter;
  texture.generateMipmaps = false;
  texture.needsUpdate = true;
  return texture;
}

const vertexShader = /* glsl */ `
  precision highp float;
  precision highp int;
  precision highp sampler2DArray;

  uniform highp sampler2DArray positions;
  uniform highp sampler2DArray normals;
  uniform float width;
  uniform float height;
  uniform float rowsPerFrame;
  uniform float time;
  // Per clip: first_row, frame_count, duration, looping; and its layer.
  uniform vec4 clips[${MAX_CLIPS}];
  uniform float clipLayers[${MAX_CLIPS}];

  in vec2 uv1;
  #ifdef HAS_TINT
  in vec4 tint;
  #endif
  in float clip;
  in float rate;
  in float offset;

  out vec3 vNormal;
  out vec4 vTint;

  // The texel at the lookup, moved down by rowOffset rows.
  vec4 fetchAt(highp sampler2DArray tex, vec2 lookup, float rowOffset, float layer) {
    int x = int(floor(lookup.x * width));
    int row = int(floor(lookup.y * height)) + int(rowOffset);
    return texelFetch(tex, ivec3(x, int(height) - 1 - row, int(layer)), 0);
  }

  void main() {
    int c = int(clip);
    vec4 info = clips[c];
    float firstRow = info.x;
    float frameCount = info.y;
    float duration = info.z;
    bool looping = info.w > 0.5;
    float layer = clipLayers[c];

    // docs/formats.md's time to frame: clip time, wrapped or clamped, to a
    // fractional frame; lerp the two stored frames around it.
    float t = time * rate + offset;
    t = looping ? mod(t, duration) : clamp(t, 0.0, duration);
    float frame = duration > 0.0 ? t / duration * (frameCount - 1.0) : 0.0;
    float f0 = floor(frame);
    float f1 = min(f0 + 1.0, frameCount - 1.0);
    float a = frame - f0;
    float row0 = firstRow + f0 * rowsPerFrame;
    float row1 = firstRow + f1 * rowsPerFrame;
    vec3 p = mix(fetchAt(positions, uv1, row0, layer).xyz, fetchAt(positions, uv1, row1, layer).xyz, a);
    vec3 n = mix(fetchAt(normals, uv1, row0, layer).xyz, fetchAt(normals, uv1, row1, layer).xyz, a);

    vNormal = normalize(mat3(modelMatrix) * mat3(instanceMatrix) * n);
    #ifdef HAS_TINT
    vTint = tint;
    #else
    vTint = vec4(1.0);
    #endif
    gl_Position = projectionMatrix * viewMatrix * modelMatrix * instanceMatrix * vec4(p, 1.0);
  }
`;

const fragmentShader = /* glsl */ `
  precision highp float;
  uniform vec3 color;
  uniform bool flatWhite;
  in vec3 vNormal;
  in vec4 vTint;
  out vec4 outColor;
  void main() {
    if (flatWhite) {
      outColor = vec4(1.0);
      return;
    }
    vec3 sun = normalize(vec3(-0.45, 0.62, 0.38));
    float light = 0.35 + 0.65 * max(dot(normalize(vNormal), sun), 0.0);
    // Linear colours (glTF's) to the canvas's sRGB.
    outColor = vec4(pow(color * vTint.rgb * light, vec3(1.0 / 2.2)), 1.0);
  }
`;

// Loads the export in folder `base` (ending in '/').
export async function loadExport(base) {
  const table = await loadJson(base + 'vat.json');
  if (table.format !== 'stampede-vat') throw new Error(`${base}vat.json is not a Stampede bake`);
  if (!table.textures.positions) {
    throw new Error(`${base}: a ${table.precision} bake; this page reads the f16 or f32 EXRs`);
  }
  if (table.clips.length > MAX_CLIPS) throw new Error(`more than ${MAX_CLIPS} clips`);
  const layout = table.layout;
  const [gltf, positions, normals] = await Promise.all([
    new GLTFLoader().loadAsync(base + table.mesh.file),
    loadLayers(base, table.textures.positions, layout),
    loadLayers(base, table.textures.normals, layout),
  ]);
  return { table, gltf, positions, normals };
}

// A crowd of `instances` ({ matrix: 16 numbers, column-major; clip; rate;
// offset: seconds }) of the export, drawn in one instanced draw per
// primitive of the mesh. Returns the group and a function setting the
// scene time.
export function makeCrowd(vat, instances, { flat = false } = {}) {
  const { table, gltf, positions, normals } = vat;
  const clips = new Array(MAX_CLIPS).fill(null).map(() => new THREE.Vector4());
  const clipLayers = new Array(MAX_CLIPS).fill(0);
  table.clips.forEach((c, i) => {
    clips[i].set(c.first_row, c.frame_count, c.duration, c.looping ? 1 : 0);
    clipLayers[i] = c.layer;
  });
  const time = { value: 0 };
  const group = new THREE.Group();
  const count = instances.length;
  const clip = new Float32Array(count);
  const rate = new Float32Array(count);
  const offset = new Float32Array(count);
  instances.forEach((inst, i) => {
    clip[i] = inst.clip;
    rate[i] = inst.rate;
    offset[i] = inst.offset;
  });
  gltf.scene.traverse((node) => {
    if (!node.isMesh) return;
    const geometry = node.geometry.clone();
    if (!geometry.getAttribute('uv1')) throw new Error('mesh.glb has no TEXCOORD_1 (the lookup)');
    geometry.setAttribute('clip', new THREE.InstancedBufferAttribute(clip, 1));
    geometry.setAttribute('rate', new THREE.InstancedBufferAttribute(rate, 1));
    geometry.setAttribute('offset', new THREE.InstancedBufferAttribute(offset, 1));
    const base = node.material.color ? node.material.color.clone() : new THREE.Color(1, 1, 1);
    // COLOR_0, when the mesh has it, tints the material's colour.
    const defines = {};
    if (geometry.getAttribute('color')) {
      geometry.setAttribute('tint', geometry.getAttribute('color'));
      defines.HAS_TINT = 1;
    }
    const material = new THREE.ShaderMaterial({
      defines,
      glslVersion: THREE.GLSL3,
      vertexShader,
      fragmentShader,
      side: node.material.side,
      uniforms: {
        positions: { value: positions },
        normals: { value: normals },
        width: { value: table.layout.width },
        height: { value: table.layout.height },
        rowsPerFrame: { value: table.layout.rows_per_frame },
        clips: { value: clips },
        clipLayers: { value: clipLayers },
        time,
        color: { value: base },
        flatWhite: { value: flat },
      },
    });
    const mesh = new THREE.InstancedMesh(geometry, material, count);
    instances.forEach((inst, i) => mesh.setMatrixAt(i, new THREE.Matrix4().fromArray(inst.matrix)));
    mesh.instanceMatrix.needsUpdate = true;
    // The animated poses reach beyond the rest pose's bounds.
    mesh.frustumCulled = false;
    group.add(mesh);
  });
  return { group, setTime: (t) => { time.value = t; } };
}
