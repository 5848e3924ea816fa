// The page: a crowd playing Stampede's export.
//
//   index.html?export=PATH/         the bake folder (default: ./export/)
//   index.html?...&count=N          a square of N instances, each with its
//                                   own clip, rate and time offset
//   index.html?...&scene=FILE.json  a fixed scene instead: { time, width,
//                                   height, camera: { eye, target, fov_y,
//                                   near, far }, instances: [{ matrix,
//                                   clip, rate, offset }] }, drawn once in
//                                   flat white on black; the title then
//                                   reads "rendered" (or "error: ...")

import * as THREE from 'three';
import { loadExport, makeCrowd } from './vat.js';

const params = new URLSearchParams(location.search);
const status = document.getElementById('status');

function fail(error) {
  document.title = `error: ${error.message || error}`;
  status.textContent = document.title;
  console.error(error);
}

// A square of `count` instances spaced by the model's size, with seeded
// clips, rates and offsets.
function demoInstances(table, count) {
  const size = new THREE.Vector3().fromArray(table.bounds.max)
    .sub(new THREE.Vector3().fromArray(table.bounds.min));
  const spacing = Math.max(size.x, size.z) * 1.4;
  const side = Math.ceil(Math.sqrt(count));
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const instances = [];
  for (let i = 0; i < count; i++) {
    const clip = Math.floor(random() * table.clips.length);
    const matrix = new THREE.Matrix4().compose(
      new THREE.Vector3((i % side - side / 2) * spacing, 0, (Math.floor(i / side) - side / 2) * spacing),
      new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), random() * 0.6 - 0.3),
      new THREE.Vector3(1, 1, 1),
    );
    instances.push({
      matrix: matrix.toArray(),
      clip,
      rate: 0.9 + 0.2 * random(),
      offset: random() * table.clips[clip].duration,
    });
  }
  return { instances, extent: side * spacing, height: size.y };
}

async function main() {
  const base = params.get('export') || './export/';
  const vat = await loadExport(base);
  const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  document.body.appendChild(renderer.domElement);
  const scene = new THREE.Scene();

  const sceneFile = params.get('scene');
  if (sceneFile) {
    const response = await fetch(sceneFile);
    if (!response.ok) throw new Error(`${sceneFile}: ${response.status}`);
    const fixed = await response.json();
    renderer.setSize(fixed.width, fixed.height);
    renderer.setClearColor(0x000000, 1);
    const c = fixed.camera;
    const camera = new THREE.PerspectiveCamera(c.fov_y, fixed.width / fixed.height, c.near, c.far);
    camera.position.fromArray(c.eye);
    camera.up.set(0, 1, 0);
    camera.lookAt(new THREE.Vector3().fromArray(c.target));
    const crowd = makeCrowd(vat, fixed.instances, { flat: true });
    crowd.setTime(fixed.time);
    scene.add(crowd.group);
    renderer.render(scene, camera);
    const gl = renderer.getContext();
    await new Promise((resolve) => requestAnimationFrame(resolve));
    gl.finish();
    document.title = 'rendered';
    return;
  }

  const count = Math.max(1, Math.min(100000, Number(params.get('count')) || 400));
  const demo = demoInstances(vat.table, count);
  renderer.setSize(innerWidth, innerHeight);
  renderer.setClearColor(0x87a8c8, 1);
  const camera = new THREE.PerspectiveCamera(45, innerWidth / innerHeight, demo.height * 0.1, demo.extent * 20);
  camera.position.set(demo.extent * 0.6, demo.extent * 0.35, demo.extent * 0.9);
  camera.lookAt(0, demo.height * 0.5, 0);
  const crowd = makeCrowd(vat, demo.instances);
  scene.add(crowd.group);
  addEventListener('resize', () => {
    renderer.setSize(innerWidth, innerHeight);
    camera.aspect = innerWidth / innerHeight;
    camera.updateProjectionMatrix();
  });
  status.textContent = `${count} × ${vat.table.model}, ${vat.table.clips.length} clips`;
  document.title = 'playing';
  const start = performance.now();
  renderer.setAnimationLoop(() => {
    crowd.setTime((performance.now() - start) / 1000);
    renderer.render(scene, camera);
  });
}

main().catch(fail);
