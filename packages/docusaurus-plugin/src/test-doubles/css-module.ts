// CSS modules in tests: each class name maps to itself, like css-loader's output names.
const classNames = new Proxy({}, { get: (_target, key) => (typeof key === 'string' ? key : '') });
export default classNames;
